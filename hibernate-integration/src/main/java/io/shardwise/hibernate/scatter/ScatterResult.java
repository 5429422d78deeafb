package io.shardwise.hibernate.scatter;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The merged rows of a scatter-gather query and what happened on the way.
 *
 * @param rows the merged rows, in the query's order when it has an ORDER BY
 * @param missingShards shards that failed or were late, with the reason (empty unless the policy
 *     was {@link ShardFailurePolicy#PARTIAL})
 * @param shardTimes how long each answering shard took, from submission to its last row
 * @param shardRows how many rows each answering shard sent (what the merge had to hold)
 * @param elapsed the wall-clock time of the whole query, merge included
 * @param lastSortKey the ORDER BY values of the last row, ready for {@code after(...)} on the next
 *     page; null when the query has no ORDER BY or returned no row
 */
public record ScatterResult<T>(List<T> rows, Map<String, String> missingShards, Map<String, Duration> shardTimes,
    Map<String, Integer> shardRows, Duration elapsed, Object[] lastSortKey) {

  /** True when every shard answered. */
  public boolean isComplete() {
    return missingShards.isEmpty();
  }
}
