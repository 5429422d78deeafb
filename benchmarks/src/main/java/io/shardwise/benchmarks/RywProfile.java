package io.shardwise.benchmarks;

import io.shardwise.annotations.ReadYourWrites;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/**
 * A user's profile with read-your-writes in LSN mode: a write transaction of a consistency scope
 * captures the primary's WAL position after commit. Identical to {@link PlainProfile} otherwise.
 */
@Entity
@ReadYourWrites(mode = ReadYourWrites.Mode.LSN)
public class RywProfile implements BenchProfile {
  @Id @ShardKey
  private Long userId;
  private String name;

  protected RywProfile() {}

  public RywProfile(long userId, String name) {
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
