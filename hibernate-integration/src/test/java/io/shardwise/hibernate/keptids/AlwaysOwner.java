package io.shardwise.hibernate.keptids;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A root whose table says GENERATED ALWAYS AS IDENTITY, which refuses explicit ids. */
@Entity
@Table(name = "kept_always")
public class AlwaysOwner {
  @Id
  @ShardKey
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Integer id;

  private String name;

  protected AlwaysOwner() {}

  public AlwaysOwner(String name) {
    this.name = name;
  }

  public Integer getId() {
    return id;
  }
}
