package io.shardwise.spring.boot.autoconfigure.shop;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToMany;
import java.util.ArrayList;
import java.util.List;

/** A merchant's catalog, keyed by the merchant: it lists its items without a back-reference. */
@Entity
public class Catalog {
  @Id
  @ShardKey
  private Long merchantId;

  @OneToMany(cascade = CascadeType.ALL, orphanRemoval = true, fetch = FetchType.EAGER)
  @JoinColumn(name = "merchant_id", insertable = false, updatable = false)
  private List<CatalogItem> items = new ArrayList<>();

  protected Catalog() {}

  public Catalog(long merchantId) {
    this.merchantId = merchantId;
  }

  public Catalog add(CatalogItem item) {
    items.add(item);
    return this;
  }

  public List<CatalogItem> items() {
    return items;
  }
}
