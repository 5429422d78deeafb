package io.shardwise.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * After a consistency scope (a user, a request chain) writes this entity, that scope's later reads
 * on the same shard never see older data, even when a replica serves them.
 *
 * <pre>{@code
 * @Entity @ReadYourWrites(mode = ReadYourWrites.Mode.LSN)
 * class Profile { @Id @ShardKey Long userId; String name; }
 *
 * shards.forKey(userId).within(scope).inTransaction(s -> s.find(Profile.class, userId).setName("Ada"));
 * shards.forKey(userId).within(scope).readOnly().fromSession(s -> s.find(Profile.class, userId)); // sees "Ada"
 * }</pre>
 *
 * <p>Writes of entities without this annotation pin nothing: the scope's reads may be served by
 * any healthy replica.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface ReadYourWrites {

  /** How the scope is kept consistent after a write. */
  enum Mode {
    /**
     * The WAL position of the write's commit is pinned to the scope; its reads on that shard go to
     * a replica that has replayed past it (waiting at most {@link #maxWaitMillis()}), else to the
     * primary. Replicas keep serving the scope as soon as they have caught up.
     */
    LSN,
    /** The scope reads from the shard's primary for {@link #windowMillis()} after the write. */
    TIME
  }

  Mode mode() default Mode.LSN;

  /** TIME mode: how long the scope's reads stay on the primary after a write. */
  long windowMillis() default 2000;

  /** LSN mode: how long a read may wait for a replica to catch up before it goes to the primary. */
  long maxWaitMillis() default 0;
}
