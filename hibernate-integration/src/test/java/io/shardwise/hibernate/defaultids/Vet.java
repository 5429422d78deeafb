package io.shardwise.hibernate.defaultids;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An Integer id without a generator: too small for shardwise.ids.default = snowflake. */
@Entity
@Table(name = "default_id_vet")
public class Vet {
  @Id
  @ShardKey
  private Integer id;
}
