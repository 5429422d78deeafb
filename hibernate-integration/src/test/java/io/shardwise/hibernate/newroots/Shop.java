package io.shardwise.hibernate.newroots;

import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A root whose shard key is its generated id: new ones are placed by ShardedSessions.forNewRoot. */
@Entity
@Table(name = "new_root_shop")
public class Shop {
  @Id
  @SnowflakeId
  @ShardKey
  private Long id;

  private String name;

  protected Shop() {}

  public Shop(String name) {
    this.name = name;
  }

  public Shop(long id, String name) {
    this.id = id;
    this.name = name;
  }

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }
}
