package io.shardwise.spring.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The shard a Spring test method (or every method of a test class) runs in: the
 * {@link io.shardwise.hibernate.ShardContext} is open before Spring's test-managed transaction
 * begins, so a {@code @Transactional} test's transaction — and every repository call in the test
 * body — is on that shard, and it closes after the transaction is rolled back.
 *
 * <pre>{@code
 * @Test
 * @InShard(key = "42")                  // the shard of merchant 42 (a long key)
 * void placesAnOrder() { orders.save(new ShopOrder(42, ...)); }
 *
 * @InShard(key = "acme", keyType = String.class)
 * @InShard(shard = "s1")
 * }</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface InShard {

  /** The shard key, converted to {@link #keyType()}. */
  String key() default "";

  /** The Java type of the key: Long (default), Integer, Short, String or java.util.UUID. */
  Class<?> keyType() default Long.class;

  /** A shard id named directly, instead of {@link #key()}. */
  String shard() default "";
}
