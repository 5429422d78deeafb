package io.shardwise.spring.boot.autoconfigure.shop;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
@CoLocated(with = Catalog.class, listedIn = "items")
public class CatalogItem {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "merchant_id")
  private Long merchantId;

  private String name;

  protected CatalogItem() {}

  public CatalogItem(String name) {
    this.name = name;
  }

  public void rename(String name) {
    this.name = name;
  }
}
