package io.shardwise.hibernate.scatter;

import io.shardwise.hibernate.ShardwiseException;
import io.shardwise.hibernate.ShardwiseSettings;

/**
 * A scatter-gather query would hold more rows in memory than {@value ShardwiseSettings#SCATTER_MAX_ROWS}
 * allows. Either its OFFSET and LIMIT ask every shard for more rows than that (refused before any
 * SQL is sent), or its shards together sent more rows than that (stopped as the rows arrived,
 * under either {@link ShardFailurePolicy}). The message names the query, the cap and the ways out:
 * a LIMIT, keyset pagination with {@link ScatterQuery#after}, a narrower WHERE clause, or a higher
 * setting.
 */
public class ScatterRowLimitException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public ScatterRowLimitException(String message) {
    super(message);
  }

  public ScatterRowLimitException(String message, Throwable cause) {
    super(message, cause);
  }
}
