package io.shardwise.processor;

/**
 * The stable tag each error starts with, in brackets, so that users can search for it and tests
 * can pin it. Documented one by one in docs/compile-time-checks.md; never rename one.
 */
enum Tag {
  ShardKeyMissing,
  ShardKeyDuplicate,
  ShardKeyType,
  CoLocatedTarget,
  CoLocatedKeyType,
  KeyPath,
  ReferenceWithShardKey,
  AssociationAcrossShards,
  ReferenceToSharded,
  SnowflakeIdType,
  QueryWithoutShardKey,
  UnresolvedEntity,
  LockedReadOnly,
  InsertWithoutShardKey,
  /** A warning, not an error: a native query of a sharded entity's Spring Data repository. */
  NativeQueryUnchecked,
  /**
   * A warning, not an error: a shard key that is a database-generated id, which needs the runtime
   * setting {@code shardwise.ids.generated = cluster} the processor cannot see.
   */
  GeneratedShardKey,
  /** The one error that stands for the errors past the printed ones, naming the report file. */
  TooManyErrors;

  String bracketed() {
    return "[" + name() + "]";
  }
}
