package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.resharding.BucketMovedException;
import io.shardwise.hibernate.resharding.ReshardTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;

/**
 * The fence: what makes a shard itself refuse writes to buckets it does not own (any more), so that
 * a router with a stale map cannot write to the wrong place, and what lets the write switch drain
 * in-flight transactions.
 *
 * <h2>How it works</h2>
 *
 * <p>Each shard involved in a move gets a schema {@code shardwise_reshard} with a table
 * {@code fence(bucket, state, owner, map_version, lock_key)} and, on every table the move carries,
 * a {@code BEFORE INSERT OR UPDATE OR DELETE} row trigger. The trigger computes the row's bucket with
 * the router's own hash and looks it up in {@code fence}:
 *
 * <ul>
 *   <li>no row: not a moving bucket, the write goes on (one index probe);</li>
 *   <li>{@code open}: the shard owns the bucket and it is moving; the transaction takes the move's
 *       advisory lock in <em>shared</em> mode ({@code pg_try_advisory_xact_lock_shared}) and keeps it
 *       until it ends;</li>
 *   <li>{@code fenced}: another shard owns the bucket; the write fails with SQLSTATE
 *       {@value BucketMovedException#SQLSTATE_MOVED}, naming the owner and the map version.</li>
 * </ul>
 *
 * <p>The write switch takes the same advisory lock in <em>exclusive</em> mode. That waits for every
 * transaction that has written a moving bucket to end (the drain), and from the moment it is
 * queued, PostgreSQL refuses new shared holders, so new writes wait in the trigger, queued behind the
 * switch's request (a blocking lock wait with a {@code lock_timeout}: no polling, no CPU). When the switch releases the lock, waiting writers re-read the fence: still
 * {@code open} (switch abandoned) and they go on; {@code fenced} and they fail with
 * {@code SW002}, which the runtime turns into a map refresh and a {@link BucketMovedException}.
 * A writer waits at most the given limit, then fails with {@value BucketMovedException#SQLSTATE_FROZEN}.
 *
 * <p>Logical replication's apply workers run with {@code session_replication_role = replica}, so
 * the trigger never fires for replicated changes; the mover's own deletes set
 * {@code shardwise.bypass_fence = on}.
 */
final class Fences {
  static final String SCHEMA = "shardwise_reshard";
  static final String TRIGGER = "shardwise_fence";

  private Fences() {}

  /** The fence and marker tables; safe to run again. */
  static void createSchema(Connection c) throws SQLException {
    Sql.execute(c, "CREATE SCHEMA IF NOT EXISTS " + SCHEMA,
        "CREATE TABLE IF NOT EXISTS " + SCHEMA + ".fence (bucket int PRIMARY KEY, workflow_id text NOT NULL, "
            + "state text NOT NULL CHECK (state IN ('open', 'fenced')), owner text NOT NULL, "
            + "map_version bigint NOT NULL DEFAULT -1, lock_key bigint NOT NULL)",
        "CREATE TABLE IF NOT EXISTS " + SCHEMA + ".marker (workflow_id text NOT NULL, origin text NOT NULL, "
            + "seq bigint NOT NULL, written_at timestamptz NOT NULL, PRIMARY KEY (workflow_id, origin))");
  }

  static String functionName(ReshardTable table) {
    return "fence_" + Sql.bare(table.name());
  }

  /** Creates (or replaces) the trigger function of {@code table} and its trigger. */
  static void install(Connection c, ReshardTable table, int bucketCount, long maxWaitMillis) throws SQLException {
    String function = SCHEMA + "." + Sql.ident(functionName(table));
    String body = """
        CREATE OR REPLACE FUNCTION %1$s() RETURNS trigger LANGUAGE plpgsql AS $fence$
        DECLARE
          b int;
          f record;
          saved text;
        BEGIN
          IF current_setting('shardwise.bypass_fence', true) = 'on' THEN
            IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
            RETURN NEW;
          END IF;
          IF TG_OP = 'DELETE' THEN b := %2$s; ELSE b := %3$s; END IF;
          SELECT state, owner, map_version, lock_key INTO f FROM %4$s.fence WHERE bucket = b;
          IF FOUND AND f.state = 'open' AND NOT pg_try_advisory_xact_lock_shared(f.lock_key) THEN
            saved := current_setting('lock_timeout');
            BEGIN
              PERFORM set_config('lock_timeout', '%5$sms', true);
              PERFORM pg_advisory_xact_lock_shared(f.lock_key);
              PERFORM set_config('lock_timeout', saved, true);
            EXCEPTION WHEN lock_not_available THEN
              RAISE EXCEPTION USING ERRCODE = '%6$s',
                MESSAGE = format('bucket %%s of table %%s is frozen by a write switch for more than %5$s ms', b, TG_TABLE_NAME),
                DETAIL = format('bucket=%%s', b);
            END;
            SELECT state, owner, map_version, lock_key INTO f FROM %4$s.fence WHERE bucket = b;
          END IF;
          IF FOUND AND f.state = 'fenced' THEN
            RAISE EXCEPTION USING ERRCODE = '%7$s',
              MESSAGE = format('bucket %%s of table %%s belongs to shard %%s (shard map version %%s)', b, TG_TABLE_NAME, f.owner, f.map_version),
              DETAIL = format('bucket=%%s owner=%%s version=%%s', b, f.owner, f.map_version),
              HINT = 'Refresh the shard map and retry the unit of work on the new owner.';
          END IF;
          IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
          RETURN NEW;
        END
        $fence$""".formatted(function, Sql.bucketOf(table, "OLD.", bucketCount), Sql.bucketOf(table, "NEW.", bucketCount),
        SCHEMA, maxWaitMillis, BucketMovedException.SQLSTATE_FROZEN, BucketMovedException.SQLSTATE_MOVED);
    Sql.execute(c, body,
        "DROP TRIGGER IF EXISTS " + TRIGGER + " ON " + Sql.table(table.name()),
        "CREATE TRIGGER " + TRIGGER + " BEFORE INSERT OR UPDATE OR DELETE ON " + Sql.table(table.name())
            + " FOR EACH ROW EXECUTE FUNCTION " + function + "()");
  }

  static void uninstall(Connection c, ReshardTable table) throws SQLException {
    if (Sql.exists(c, "SELECT 1 FROM pg_class WHERE oid = to_regclass(?)", Sql.table(table.name()))) {
      Sql.execute(c, "DROP TRIGGER IF EXISTS " + TRIGGER + " ON " + Sql.table(table.name()));
    }
    Sql.execute(c, "DROP FUNCTION IF EXISTS " + SCHEMA + "." + Sql.ident(functionName(table)) + "()");
  }

  /** Sets the fence of {@code buckets} for {@code workflowId}: open (this shard owns them) or fenced. */
  static void set(Connection c, String workflowId, Collection<Integer> buckets, String state, String owner,
      long mapVersion, long lockKey) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + SCHEMA + ".fence (bucket, workflow_id, state, owner, "
        + "map_version, lock_key) SELECT b, ?, ?, ?, ?, ? FROM unnest(?::int[]) AS b ON CONFLICT (bucket) DO UPDATE "
        + "SET state = excluded.state, owner = excluded.owner, map_version = excluded.map_version, "
        + "lock_key = excluded.lock_key WHERE " + SCHEMA + ".fence.workflow_id = excluded.workflow_id")) {
      ps.setString(1, workflowId);
      ps.setString(2, state);
      ps.setString(3, owner);
      ps.setLong(4, mapVersion);
      ps.setLong(5, lockKey);
      ps.setArray(6, c.createArrayOf("int4", buckets.toArray()));
      int changed = ps.executeUpdate();
      if (changed != buckets.size()) {
        String other = Sql.queryText(c, "SELECT workflow_id FROM " + SCHEMA + ".fence WHERE bucket = ANY(?::int[]) "
            + "AND workflow_id <> ?", c.createArrayOf("int4", buckets.toArray()), workflowId);
        throw new SQLException("buckets of move " + workflowId + " are fenced by move " + other + "; finish or cancel it first");
      }
    }
  }

  /** The fence state of the workflow's buckets on this shard: "open", "fenced", "mixed" or null (none). */
  static String state(Connection c, String workflowId) throws SQLException {
    return Sql.queryText(c, "SELECT CASE WHEN count(DISTINCT state) > 1 THEN 'mixed' ELSE min(state) END FROM "
        + SCHEMA + ".fence WHERE workflow_id = ? HAVING count(*) > 0", workflowId);
  }

  static void remove(Connection c, String workflowId) throws SQLException {
    if (Sql.exists(c, "SELECT 1 FROM pg_namespace WHERE nspname = ?", SCHEMA)) {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + SCHEMA + ".fence WHERE workflow_id = ?")) {
        ps.setString(1, workflowId);
        ps.executeUpdate();
      }
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + SCHEMA + ".marker WHERE workflow_id = ?")) {
        ps.setString(1, workflowId);
        ps.executeUpdate();
      }
    }
  }

  /** Writes the next marker of {@code workflowId} from this shard (autocommit); returns its sequence number. */
  static long writeMarker(Connection c, String workflowId, String origin) throws SQLException {
    return Sql.queryLong(c, "INSERT INTO " + SCHEMA + ".marker AS m (workflow_id, origin, seq, written_at) "
        + "VALUES (?, ?, 1, clock_timestamp()) ON CONFLICT (workflow_id, origin) DO UPDATE SET seq = m.seq + 1, "
        + "written_at = clock_timestamp() RETURNING seq", workflowId, origin);
  }

  /** The highest marker of {@code origin} this shard has (applied), or 0. */
  static long markerSeen(Connection c, String workflowId, String origin) throws SQLException {
    String seq = Sql.queryText(c, "SELECT seq FROM " + SCHEMA + ".marker WHERE workflow_id = ? AND origin = ?",
        workflowId, origin);
    return seq == null ? 0 : Long.parseLong(seq);
  }
}
