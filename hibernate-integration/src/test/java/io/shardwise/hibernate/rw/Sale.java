package io.shardwise.hibernate.rw;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
@CoLocated(with = Product.class)
public class Sale {
  @Id
  private Long id;
  @ShardKey
  private Long sku;
  private String buyer;

  protected Sale() {}

  public Sale(long id, long sku, String buyer) {
    this.id = id;
    this.sku = sku;
    this.buyer = buyer;
  }
}
