package io.shardwise.hibernate.id;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;

/**
 * Gives a {@code long}/{@code Long} id a 64-bit, time-ordered Snowflake value before insert:
 * unique across shards and application instances without asking any database, and increasing
 * with time, so primary-key B-trees grow at their right edge instead of splitting pages at random
 * as UUIDv4 keys do.
 *
 * <pre>{@code
 * @Entity
 * class Order {
 *   @Id @SnowflakeId
 *   private Long id;
 *   ...
 * }
 * }</pre>
 *
 * <p>Each running application instance needs its own worker id; configure exactly one of these
 * as a Hibernate setting (e.g. in {@code persistence.xml} or {@code hibernate.properties}) or as a
 * JVM system property (the Hibernate setting wins):
 *
 * <ul>
 *   <li>{@value SnowflakeGenerator#WORKER_ID}: a fixed worker id, e.g. the ordinal of a Kubernetes
 *       StatefulSet pod. You guarantee that no two running instances share it.
 *   <li>{@value SnowflakeGenerator#LEASE_URL}: the JDBC URL of a PostgreSQL control database; the
 *       instance leases a free worker id there at start-up ({@link WorkerLease}) and renews it in
 *       the background. Optional companions: {@value SnowflakeGenerator#LEASE_USER}, {@value
 *       SnowflakeGenerator#LEASE_PASSWORD}, {@value SnowflakeGenerator#LEASE_TTL_SECONDS}
 *       (default 30).
 * </ul>
 *
 * <p>All entities of one JVM with the same layout share one generator per worker id, whatever their
 * {@link #maxClockStepBackMillis()}, so their ids never collide either. {@link SnowflakeLayout#of(SnowflakeId)} decodes ids made under this annotation.
 * Never change the epoch or the bit split of an entity that already has rows.
 */
@Documented
@IdGeneratorType(SnowflakeGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface SnowflakeId {

  /** The instant that millisecond 0 stands for, as ISO-8601 ({@code Instant.parse}); must lie in the past. */
  String epoch() default "2024-01-01T00:00:00Z";

  /** Bits for the worker id: {@code 2^workerBits} instances can generate at once (default 10: 1024). */
  int workerBits() default 10;

  /** Bits for the per-millisecond sequence: {@code 2^sequenceBits} ids per millisecond and instance (default 12: 4096). */
  int sequenceBits() default 12;

  /**
   * How many milliseconds the clock may step back before generation fails with {@link
   * ClockMovedBackwardsException}; within it, inserts wait for the clock (default 10).
   */
  long maxClockStepBackMillis() default 10;
}
