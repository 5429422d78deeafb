package io.shardwise.hibernate.wiring.internal;

import io.shardwise.hibernate.internal.ShardFailures;
import io.shardwise.hibernate.internal.ShardSessions;
import io.shardwise.hibernate.resharding.BucketMovedException;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;

/**
 * Runs, once per persistence unit and before its first write switch, the path a write refused by
 * a move's fence takes through the application: the server's error read by the driver and the pool, converted
 * (and logged) by Hibernate, the transaction rolled back, the session closed, and the error translated
 * into a {@link BucketMovedException}. The first time a JVM runs that path it loads and links some
 * hundred classes; without this rehearsal that cost lands inside the first freeze, on the writers that
 * were refused there. The refusal is raised by a {@code DO} block on a connection to the move's target
 * (its pool has just been filled); nothing is written, and Hibernate logs it once as a warning whose
 * message says it is a rehearsal.
 */
final class FenceRefusalRehearsal {
  private static final System.Logger LOG = System.getLogger("io.shardwise");
  /** The refusal's message, quoted for the {@code DO} block. */
  static final String MESSAGE = "Shardwise rehearses a write refused by a move''s fence before the first write switch"
      + " this persistence unit sees (not an error; nothing was written)";

  private final AtomicBoolean done = new AtomicBoolean();
  private volatile boolean translated;

  /**
   * Rehearses on {@code shardId} unless it was done for this unit already; the translation's map
   * refresh is answered by {@code map} (nothing is loaded).
   *
   * @return whether the rehearsal ended in a {@link BucketMovedException}, as a refused write does
   */
  boolean runOnce(SessionFactory sessionFactory, String shardId, LongFunction<ShardMap> map) {
    if (sessionFactory == null || !done.compareAndSet(false, true)) {
      return false;
    }
    try (Session session = ShardSessions.open(sessionFactory, shardId, false)) {
      Transaction tx = session.beginTransaction();
      try {
        session.doWork(c -> {
          try (Statement s = c.createStatement()) {
            s.execute("DO $$BEGIN RAISE EXCEPTION USING ERRCODE = '" + BucketMovedException.SQLSTATE_MOVED
                + "', MESSAGE = '" + MESSAGE + "', DETAIL = 'bucket=-1 owner=" + shardId.replace("'", "''")
                + " version=-1'; END$$");
          }
        });
        tx.commit();
      } catch (RuntimeException e) {
        if (tx.isActive()) {
          tx.rollback();
        }
        translated = ShardFailures.ofUnitOfWork(e, shardId, map) instanceof BucketMovedException;
        return translated;
      }
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.DEBUG, "rehearsing a fence's refusal on shard " + shardId + " failed ("
          + e.getMessage() + "); the first refused write of a switch loads that path itself");
    }
    return false;
  }

  /** Whether the rehearsal has run for this unit and ended in a {@link BucketMovedException}. */
  boolean translated() {
    return translated;
  }
}
