package io.shardwise.hibernate.scatter;

import io.shardwise.hibernate.ShardwiseException;
import java.util.Map;

/**
 * A scatter-gather query under {@link ShardFailurePolicy#FAIL} lost at least one shard: it failed,
 * or had not answered when the deadline passed. {@link #missingShards()} says which and why.
 */
public class ScatterGatherException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  private final transient Map<String, String> missingShards;

  public ScatterGatherException(String message, Map<String, String> missingShards, Throwable cause) {
    super(message, cause);
    this.missingShards = Map.copyOf(missingShards);
  }

  /** Shard id to the reason it is missing (its error, or the deadline it missed). */
  public Map<String, String> missingShards() {
    return missingShards;
  }
}
