package io.shardwise.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Places a sharded entity on the same shard as another: its own {@link ShardKey} holds the key of
 * the entity named in {@link #with()}. Orders, order items and inventory of one merchant share the
 * merchant's shard, so joins between them and transactions over them stay on one database.
 *
 * <pre>{@code
 * @Entity @CoLocated(with = Merchant.class)
 * class OrderItem {
 *   @Id Long id;
 *   @ShardKey Long merchantId;
 *   @ManyToOne PurchaseOrder order;   // allowed: PurchaseOrder is co-located with Merchant too
 * }
 * }</pre>
 *
 * <p>Associations between sharded entities are only allowed inside one co-location group (an
 * entity with {@code @ShardKey} and every entity co-located with it, directly or through another);
 * the shard-key types of a group must match. Both are checked when the session factory starts.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface CoLocated {

  /** The sharded entity whose shard this entity shares. */
  Class<?> with();
}
