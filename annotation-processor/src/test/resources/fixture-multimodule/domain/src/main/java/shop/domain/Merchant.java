package shop.domain;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
public class Merchant {
  @Id
  @ShardKey
  Long id;

  String name;
}
