package io.shardwise.hibernate;

import io.shardwise.hibernate.internal.ReferenceWrites;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardwiseRuntime;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.persister.entity.AbstractEntityPersister;
import org.hibernate.persister.entity.EntityPersister;

/**
 * {@code @ReferenceTable} entities are copied to every shard. This is the only way to change them:
 * {@link #inTransaction} runs the same work on every shard inside one two-phase transaction, so the
 * copies change together or not at all; {@link #check()} compares the copies.
 *
 * <pre>{@code
 * shards.referenceTables().inTransaction(s -> s.persist(new Country("PT", "Portugal")));
 * ReferenceTables.Report report = shards.referenceTables().check();
 * if (!report.consistent()) log.error(report.drift());
 * }</pre>
 */
public final class ReferenceTables {
  private final ShardedSessions shards;
  private final ShardwiseRuntime runtime;

  ReferenceTables(ShardedSessions shards, ShardwiseRuntime runtime) {
    this.shards = shards;
    this.runtime = runtime;
  }

  /**
   * Runs {@code work} once per shard, each time in that shard's session, all in one atomic
   * cross-shard transaction. The work must do the same thing every time (create new entity
   * instances inside it, do not share one instance between calls).
   *
   * @throws CrossShardAbortedException if any shard refused: no copy changed
   */
  public void inTransaction(Consumer<org.hibernate.Session> work) {
    runtime.crossShard("A reference-table write");
    ReferenceWrites.allowDuring(() -> shards.fromAtomically(tx -> {
      for (String shardId : shards.shardIds()) {
        tx.onShard(shardId, work);
      }
      return null;
    }));
  }

  /**
   * Per-shard checksums of every reference table: {@code md5} of its rows as JSON, in primary key
   * order, plus the row count.
   *
   * @param checksums table → shard → {@code "<rows>:<md5>"}, or {@code "unreachable: ..."}
   * @param drift one line per table whose copies differ, naming the shards that disagree with the
   *     majority
   */
  public record Report(Map<String, Map<String, String>> checksums, List<String> drift) {
    public boolean consistent() {
      return drift.isEmpty();
    }
  }

  public Report check() {
    SessionFactoryImplementor sf = shards.sessionFactory().unwrap(SessionFactoryImplementor.class);
    Map<String, Map<String, String>> checksums = new TreeMap<>();
    List<String> drift = new ArrayList<>();
    for (ShardedEntity entity : runtime.model().entities()) {
      if (!entity.reference()) {
        continue;
      }
      EntityPersister persister = sf.getMappingMetamodel().getEntityDescriptor(entity.entityName());
      if (!(persister instanceof AbstractEntityPersister mapped)) {
        continue;
      }
      String table = mapped.getTableName();
      String sql = "SELECT count(*), md5(coalesce(string_agg(row_to_json(t)::text, ',' ORDER BY "
          + String.join(", ", mapped.getIdentifierColumnNames()) + "), '')) FROM " + table + " t";
      Map<String, String> perShard = new LinkedHashMap<>();
      for (String shardId : shards.shardIds()) {
        perShard.put(shardId, checksum(shardId, sql));
      }
      checksums.put(table, perShard);
      String problem = driftOf(table, perShard);
      if (problem != null) {
        drift.add(problem);
      }
    }
    return new Report(checksums, List.copyOf(drift));
  }

  private String checksum(String shardId, String sql) {
    try (Connection c = runtime.primaryConnection(shardId); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1) + ":" + rs.getString(2);
    } catch (SQLException | RuntimeException e) {
      return "unreachable: " + e.getMessage();
    }
  }

  /** Null if every shard has the same checksum; else which shards differ from the most common one. */
  private static String driftOf(String table, Map<String, String> perShard) {
    Map<String, List<String>> byChecksum = new LinkedHashMap<>();
    perShard.forEach((shard, sum) -> byChecksum.computeIfAbsent(sum, k -> new ArrayList<>()).add(shard));
    if (byChecksum.size() <= 1) {
      return null;
    }
    Map.Entry<String, List<String>> majority = byChecksum.entrySet().stream()
        .max(Comparator.comparingInt((Map.Entry<String, List<String>> e) -> e.getValue().size())).orElseThrow();
    StringBuilder b = new StringBuilder("Reference table " + table + " differs between shards: "
        + majority.getValue() + " agree on " + majority.getKey());
    byChecksum.forEach((sum, shardIds) -> {
      if (!sum.equals(majority.getKey())) {
        b.append("; ").append(shardIds).append(" hold ").append(sum);
      }
    });
    return b.append(" (rows:md5). Rewrite the table through referenceTables().inTransaction(...) to realign.")
        .toString();
  }
}
