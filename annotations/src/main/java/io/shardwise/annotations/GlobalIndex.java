package io.shardwise.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A global secondary index on a non-key attribute of a sharded entity, so that a lookup by that
 * attribute goes to two shards instead of all of them.
 *
 * <pre>{@code
 * @Entity
 * class Customer {
 *   @Id @ShardKey Long id;
 *   @GlobalIndex(unique = true) String email;
 * }
 *
 * Optional<Customer> c = shards.findBy(Customer.class, "email", "ada@example.com");
 * }</pre>
 *
 * <p>The index is a lookup table sharded by the indexed value: the row for a value lives on the
 * shard that owns the value as if it were a shard key, and holds the entity's shard key and id.
 * <ul>
 *   <li><b>Ordered writes.</b> The index row is written, and committed, before the entity's insert
 *       or update reaches its own shard; the old row of a changed or deleted entity is removed only
 *       after the entity's commit. A committed entity therefore always has its index row; a failed
 *       transaction can only leave an extra, stale one.</li>
 *   <li><b>Verified reads.</b> A lookup loads each candidate from its owning shard and returns it
 *       only if the attribute really holds the value, so a stale row never returns a wrong entity.</li>
 *   <li><b>{@link #unique()}</b>: a second entity with a value already indexed for a live entity is
 *       refused before it is written, across all shards.</li>
 * </ul>
 * Rows that existed before the index are indexed by the backfill
 * ({@code shards.globalIndexes().backfill(Customer.class, "email", progress)}).
 * The indexed value's type must be one the shard key strategy routes (a number, a string or a UUID).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface GlobalIndex {

  /** At most one live entity per value, across all shards. */
  boolean unique() default false;
}
