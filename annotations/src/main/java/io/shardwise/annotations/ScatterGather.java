package io.shardwise.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The explicit permission for a query to run without a shard key, that is on every shard, with
 * the results gathered. Without it the annotation processor rejects, at build time, any query
 * that reads or writes a sharded entity without pinning its {@link ShardKey}.
 *
 * <pre>{@code
 * interface Reports {
 *   @ScatterGather
 *   @HQL("select o from PurchaseOrder o where o.placedAt > :since")
 *   List<PurchaseOrder> placedSince(Instant since);   // every shard, on purpose
 * }
 *
 * @Entity
 * @NamedQuery(name = "PurchaseOrder.late", query = "from PurchaseOrder o where o.due < current_date")
 * @ScatterGather(queries = "PurchaseOrder.late")
 * class PurchaseOrder { ... }
 * }</pre>
 *
 * <p>Where it applies:
 * <ul>
 *   <li>on a method: the query of its {@code @HQL}, {@code @Find} or Jakarta Data {@code @Query},
 *       and every query string the method passes to {@code createQuery} and its siblings;</li>
 *   <li>on a type: the named queries declared on it (only those listed in {@link #queries()}, or
 *       all of them when the list is empty), and the queries of its methods;</li>
 *   <li>on a field: the query string held by that constant.</li>
 * </ul>
 *
 * <p>At build time it states intent. At run time (hence runtime retention) Shardwise reads it
 * twice: the runtime query guard admits the named queries it covers when Hibernate checks them at
 * startup, and the scatter-gather API runs such a named query only when its entity allows it here:
 * {@code shards.scatter().createNamedQuery("PurchaseOrder.late", PurchaseOrder.class)}. Other
 * queries scatter only through {@code shards.scatter().createQuery(...)}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.FIELD})
public @interface ScatterGather {

  /**
   * On a type, the names of the named queries that may scatter; empty means every query declared
   * on the annotated element. Ignored on methods and fields.
   */
  String[] queries() default {};
}
