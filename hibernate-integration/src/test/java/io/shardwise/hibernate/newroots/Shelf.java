package io.shardwise.hibernate.newroots;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A child of {@link Shop}, on its shop's shard: its shard key is the shop's id. */
@Entity
@Table(name = "new_root_shelf")
@CoLocated(with = Shop.class)
public class Shelf {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "shop_id")
  private Long shopId;

  private String label;

  protected Shelf() {}

  public Shelf(long shopId, String label) {
    this.shopId = shopId;
    this.label = label;
  }

  public Long getId() {
    return id;
  }
}
