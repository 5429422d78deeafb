package io.shardwise.sample.model;

import io.shardwise.annotations.ReadYourWrites;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A customer's profile: after they change it, they must never see the old one, even from a lagging replica. */
@Entity
@ReadYourWrites(mode = ReadYourWrites.Mode.LSN)
public class Profile {
  @Id
  @ShardKey
  private Long userId;

  private String displayName;

  protected Profile() {}

  public Profile(long userId, String displayName) {
    this.userId = userId;
    this.displayName = displayName;
  }

  public String getDisplayName() {
    return displayName;
  }

  public void setDisplayName(String displayName) {
    this.displayName = displayName;
  }
}
