package io.shardwise.sample.model;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

/** The root of the shop's data: a merchant, with everything it owns, lives on the shard of its id. */
@Entity
public class Merchant {
  @Id
  @ShardKey
  private Long id;

  private String name;

  @ManyToOne
  private Country country;

  protected Merchant() {}

  public Merchant(long id, String name, Country country) {
    this.id = id;
    this.name = name;
    this.country = country;
  }

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Country getCountry() {
    return country;
  }
}
