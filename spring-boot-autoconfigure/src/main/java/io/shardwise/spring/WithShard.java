package io.shardwise.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method inside a {@link io.shardwise.hibernate.ShardContext} for the shard of
 * a key taken from its arguments, opened before the method's {@code @Transactional} transaction
 * begins (the advice is ordered first), so that the transaction's session opens on that shard.
 *
 * <pre>{@code
 * @WithShard(key = "#merchantId")
 * @Transactional
 * public Order place(long merchantId, String customer) { ... }
 *
 * @WithShard(newRoot = Merchant.class)      // a new merchant: shard chosen by weight, id routed there
 * @Transactional
 * public Merchant open(String name) { ... }
 *
 * @WithShard(key = "#order.merchantId")
 * @Transactional(readOnly = true)            // served by a replica of that shard
 * public List<Order> similar(Order order) { ... }
 * }</pre>
 *
 * <p>Called inside a transaction that is already bound to another shard, the method is refused
 * with {@link io.shardwise.hibernate.ShardKeyException} rather than run on the wrong shard.
 * Needs parameter names at run time ({@code -parameters}, which Spring Boot's build plugins set),
 * or {@code #p0}, {@code #a0} instead of names.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface WithShard {

  /** A SpEL expression over the method's arguments that gives the shard key, e.g. {@code #merchantId}. */
  String key() default "";

  /** A shard id named directly (maintenance, per-shard jobs), instead of {@link #key()}. */
  String shard() default "";

  /**
   * A root entity whose shard key is its {@code @SnowflakeId}, instead of {@link #key()}: the method
   * runs on the shard chosen for a new one ({@code ShardedSessions.forNewRoot}), and persisting
   * the root there without an id gives it an id that routes to that shard.
   */
  Class<?> newRoot() default void.class;
}
