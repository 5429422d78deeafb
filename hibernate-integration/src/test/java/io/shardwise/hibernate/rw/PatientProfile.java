package io.shardwise.hibernate.rw;

import io.shardwise.annotations.ReadYourWrites;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** LSN mode with a bounded wait: reads wait up to 3 s for a replica to catch up rather than use the primary. */
@Entity
@ReadYourWrites(mode = ReadYourWrites.Mode.LSN, maxWaitMillis = 3000)
public class PatientProfile {
  @Id @ShardKey
  private Long userId;
  private String name;

  protected PatientProfile() {}

  public PatientProfile(long userId, String name) {
    this.userId = userId;
    this.name = name;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }
}
