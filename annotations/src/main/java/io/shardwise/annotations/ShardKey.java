package io.shardwise.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the attribute whose value picks the shard of a sharded entity.
 *
 * <pre>{@code
 * @Entity
 * class Merchant {
 *   @Id @ShardKey Long id;          // a merchant lives on the shard that owns its id
 * }
 *
 * @Entity @CoLocated(with = Merchant.class)
 * class PurchaseOrder {
 *   @Id Long id;
 *   @ShardKey Long merchantId;      // the same key: an order lives beside its merchant
 * }
 * }</pre>
 *
 * <p>Rules, checked when the session factory starts (and at build time by the annotation processor):
 * <ul>
 *   <li>exactly one attribute per sharded entity carries {@code @ShardKey};</li>
 *   <li>its type is {@code long}, {@code int}, {@code short}, {@link String} or {@link java.util.UUID}
 *       (or a wrapper). The key is hashed like PostgreSQL hashes the same value, so a
 *       {@code Long 42} and an {@code Integer 42} land on the same shard, and the bucket of a row
 *       can be computed in SQL;</li>
 *   <li>the value is set before {@code persist} (by the application, or from an association with
 *       {@link CoLocated#via()}) and never changes afterwards: changing it would
 *       mean moving the row to another shard. A null key, or a key that belongs to another shard
 *       than the session's, is refused before any SQL is sent.</li>
 * </ul>
 *
 * <p>On a parameter of a Jakarta Data repository method, it names the argument that picks the
 * shard of the call (see {@code ShardedRepositories}), where the parameter's name does not already
 * say so: {@code @Query("where merchantId = :m") List<PurchaseOrder> open(@ShardKey long m)}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
public @interface ShardKey {}
