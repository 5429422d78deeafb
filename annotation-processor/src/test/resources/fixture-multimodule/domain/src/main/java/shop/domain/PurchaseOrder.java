package shop.domain;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity(name = "Ord")
@CoLocated(with = Merchant.class)
public class PurchaseOrder {
  @Id
  Long id;

  @ShardKey
  long merchantId;

  String status;
}
