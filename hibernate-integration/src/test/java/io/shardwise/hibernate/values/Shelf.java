package io.shardwise.hibernate.values;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;

/** Co-located with its {@link Store}; reaches it through an association on the key column. */
@Entity
@CoLocated(with = Store.class)
public class Shelf {
  @Id
  private Long id;

  @ShardKey
  @Column(name = "store_id")
  private Long storeId;

  @ManyToOne(fetch = FetchType.LAZY)
  @JoinColumn(name = "store_id", insertable = false, updatable = false)
  private Store store;

  private String label;

  protected Shelf() {}

  public Shelf(long id, long storeId, String label) {
    this.id = id;
    this.storeId = storeId;
    this.label = label;
  }

  public Long getId() {
    return id;
  }

  public String getLabel() {
    return label;
  }
}
