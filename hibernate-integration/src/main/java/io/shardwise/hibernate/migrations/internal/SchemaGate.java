package io.shardwise.hibernate.migrations.internal;

import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.migrations.SchemaVersionMismatchException;
import io.shardwise.hibernate.migrations.ShardSchemaVersion;
import io.shardwise.hibernate.migrations.VersionGate;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The version gate: when the session factory starts, every shard primary's schema version is read
 * from Flyway's history table; shards at different versions either stop the start
 * ({@link VersionGate#REFUSE}) or are refused to sessions ({@link VersionGate#MARK_UNAVAILABLE})
 * until a migration of this session factory brings them level ({@link #recheck()}).
 *
 * <p>A shard that cannot be reached at start has no version to compare; it is logged and left out
 * (its sessions fail on their own until it is back). A role that may not read the history table is a
 * configuration error, not a pass.
 */
public final class SchemaGate {
  private static final System.Logger LOG = System.getLogger("io.shardwise.migrations");

  private final ShardwiseConfig config;
  private final Supplier<ShardMap> maps;
  /** Shard id to the refusal message; empty unless the gate marks shards unavailable and some are behind. */
  private volatile Map<String, String> refused = Map.of();

  private SchemaGate(ShardwiseConfig config, Supplier<ShardMap> maps) {
    this.config = config;
    this.maps = maps;
  }

  /**
   * Reads every shard's version and applies the configured gate.
   *
   * @throws SchemaVersionMismatchException with {@code refuse}, when the shards differ
   */
  public static SchemaGate check(ShardwiseConfig config, Supplier<ShardMap> maps) {
    SchemaGate gate = new SchemaGate(config, maps);
    gate.apply(true);
    return gate;
  }

  /**
   * Reads the versions again after a migration or repair run by this session factory and marks (or
   * clears) the shards behind. {@code refuse} guards the start only: a running session factory is not
   * stopped by a migration half done; it never throws here.
   */
  public void recheck() {
    try {
      apply(false);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "Schema versions not re-read after the migration: " + e.getMessage());
    }
  }

  private void apply(boolean atStart) {
    VersionGate mode = config.migrations().gate();
    if (mode == VersionGate.OFF || (mode == VersionGate.REFUSE && !atStart)) {
      return;
    }
    List<ShardSchemaVersion> versions = readable(config, maps.get());
    ShardSchemaVersion highest = highest(versions);
    List<ShardSchemaVersion> behind = versions.stream()
        .filter(v -> !SchemaHistory.sameVersion(v, highest)).toList();
    if (behind.isEmpty()) {
      refused = Map.of();
      return;
    }
    String listing = versions.stream().map(v -> v.shardId() + ": " + v.shownVersion())
        .collect(Collectors.joining(", "));
    if (mode == VersionGate.REFUSE) {
      throw new SchemaVersionMismatchException("Persistence unit '" + config.unitName() + "' does not start: its"
          + " shards are at different schema versions (" + listing + "). Run `shardwise migrate` (or"
          + " ShardedSessions.migrations().migrate()) to bring every shard to the latest script; "
          + behindAdvice(behind) + ". Set shardwise.migrations.gate = mark-unavailable to start with the shards"
          + " behind refused instead.", versions);
    }
    Map<String, String> marks = new LinkedHashMap<>();
    for (ShardSchemaVersion v : behind) {
      marks.put(v.shardId(), "Shard '" + v.shardId() + "' (" + v.server() + ") is at schema version "
          + v.shownVersion() + " while other shards are at " + highest.shownVersion() + " (" + listing + "), so"
          + " persistence unit '" + config.unitName() + "' keeps it unavailable"
          + " (shardwise.migrations.gate = mark-unavailable). " + behindAdvice(List.of(v)) + ".");
    }
    LOG.log(System.Logger.Level.WARNING, "Schema versions differ (" + listing + "); shards " + marks.keySet()
        + " are unavailable until migrated");
    refused = Map.copyOf(marks);
  }

  /** Throws for a shard the gate keeps unavailable; returns at once when none is (the usual case). */
  public void admit(String shardId) {
    Map<String, String> marks = refused;
    if (!marks.isEmpty()) {
      String message = marks.get(shardId);
      if (message != null) {
        throw new ShardUnavailableException(message, shardId, null, null);
      }
    }
  }

  /** The shards the gate keeps unavailable now. */
  public java.util.Set<String> unavailableShards() {
    return refused.keySet();
  }

  private static String behindAdvice(List<ShardSchemaVersion> behind) {
    List<String> failed = behind.stream().filter(v -> v.failedScript() != null)
        .map(v -> v.shardId() + " (" + v.failedScript() + ")").toList();
    return failed.isEmpty() ? "shards behind: " + behind.stream().map(ShardSchemaVersion::shardId).toList()
        : "a failed non-transactional script is recorded on " + failed + ": undo what it left behind, run `shardwise"
            + " migrate --repair --shard-id <id>`, then migrate";
  }

  /** The highest version among {@code versions}; a failed script ranks below the same version without one. */
  private static ShardSchemaVersion highest(List<ShardSchemaVersion> versions) {
    ShardSchemaVersion best = null;
    for (ShardSchemaVersion v : versions) {
      if (best == null || compare(v, best) > 0) {
        best = v;
      }
    }
    return best;
  }

  private static int compare(ShardSchemaVersion a, ShardSchemaVersion b) {
    if (a.version() == null || b.version() == null) {
      return a.version() == null ? (b.version() == null ? 0 : -1) : 1;
    }
    int c = SchemaHistory.VERSION_ORDER.compare(a.version(), b.version());
    return c != 0 ? c : Boolean.compare(a.failedScript() == null, b.failedScript() == null);
  }

  /** Every reachable shard's version; unreachable shards are logged and left out. */
  private static List<ShardSchemaVersion> readable(ShardwiseConfig config, ShardMap map) {
    List<ShardSchemaVersion> versions = new ArrayList<>();
    for (ShardDescriptor shard : map.shards().values()) {
      try {
        versions.add(SchemaHistory.read(config, shard, -1));
      } catch (SQLException e) {
        if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
          LOG.log(System.Logger.Level.WARNING, "Schema version of shard '" + shard.id() + "' not checked: it cannot"
              + " be reached (" + e.getMessage() + ")");
          continue;
        }
        throw new ShardingConfigurationException("Persistence unit '" + config.unitName() + "' cannot read the"
            + " schema version of shard '" + shard.id() + "' from " + config.migrations().table() + " ("
            + e.getMessage() + "). Grant the application's role SELECT on it, or set shardwise.migrations.gate ="
            + " off", e);
      }
    }
    return versions;
  }
}
