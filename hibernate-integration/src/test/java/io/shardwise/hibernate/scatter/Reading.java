package io.shardwise.hibernate.scatter;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.PostLoad;
import jakarta.persistence.Table;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A sensor reading, sharded by sensor, that counts how many times Hibernate materialised one
 * ({@link #LOADS}) and fails to load the one whose id is {@link #poison}: what the lazy top-N tests measure.
 */
@Entity
@Table(name = "reading")
public class Reading {
  static final AtomicInteger LOADS = new AtomicInteger();
  static volatile Long poison;

  @Id
  private Long id;

  @ShardKey
  @Column(name = "sensor_id")
  private Long sensorId;

  private int value;

  protected Reading() {}

  public Reading(long id, long sensorId, int value) {
    this.id = id;
    this.sensorId = sensorId;
    this.value = value;
  }

  public Long getId() {
    return id;
  }

  @PostLoad
  void loaded() {
    LOADS.incrementAndGet();
    if (id.equals(poison)) {
      throw new IllegalStateException("reading " + id + " is poisoned for the test");
    }
  }
}
