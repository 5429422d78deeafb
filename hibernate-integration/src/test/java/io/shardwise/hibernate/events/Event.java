package io.shardwise.hibernate.events;

import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
public class Event {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  private Long tenantId;

  private String kind;

  protected Event() {}

  public Event(long tenantId, String kind) {
    this.tenantId = tenantId;
    this.kind = kind;
  }

  public Long getId() {
    return id;
  }
}
