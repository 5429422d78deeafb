package io.shardwise.hibernate;

/**
 * A co-located entity's shard key cannot be taken from the entity its {@code @CoLocated(via)} path
 * leads to: a hop of the path is null (of every path, when it declares several), the key the entity
 * holds disagrees with the key at the end of the path, or two of its paths lead to different keys.
 * Thrown before any SQL is sent for the row.
 */
public class ShardKeyPathException extends ShardKeyException {
  private static final long serialVersionUID = 1L;

  public ShardKeyPathException(String message) {
    super(message);
  }
}
