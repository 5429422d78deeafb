package io.shardwise.benchmarks;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** {@link RywProfile} without {@code @ReadYourWrites}: its writes pin nothing and capture no LSN. */
@Entity
public class PlainProfile implements BenchProfile {
  @Id @ShardKey
  private Long userId;
  private String name;

  protected PlainProfile() {}

  public PlainProfile(long userId, String name) {
    this.userId = userId;
    this.name = name;
  }

  @Override
  public String getName() {
    return name;
  }

  @Override
  public void setName(String name) {
    this.name = name;
  }
}
