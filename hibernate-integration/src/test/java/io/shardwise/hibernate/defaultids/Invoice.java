package io.shardwise.hibernate.defaultids;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A generator of its own, which shardwise.ids.default leaves alone. */
@Entity
@Table(name = "default_id_invoice")
public class Invoice {
  @Id
  @GeneratedValue(strategy = GenerationType.SEQUENCE)
  private Long id;

  @ShardKey
  @Column(name = "owner_id")
  private Long ownerId;

  protected Invoice() {}

  public Invoice(long ownerId) {
    this.ownerId = ownerId;
  }

  public Long getId() {
    return id;
  }
}
