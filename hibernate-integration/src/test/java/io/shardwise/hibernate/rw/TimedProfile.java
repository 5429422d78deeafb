package io.shardwise.hibernate.rw;

import io.shardwise.annotations.ReadYourWrites;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
@ReadYourWrites(mode = ReadYourWrites.Mode.TIME, windowMillis = 1500)
public class TimedProfile {
  @Id @ShardKey
  private Long userId;
  private String name;

  protected TimedProfile() {}

  public TimedProfile(long userId, String name) {
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
