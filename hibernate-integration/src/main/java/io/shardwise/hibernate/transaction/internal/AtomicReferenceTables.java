package io.shardwise.hibernate.transaction.internal;

import io.shardwise.hibernate.internal.PrimaryConnections;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import io.shardwise.hibernate.transaction.CrossShardTransaction;
import io.shardwise.hibernate.transaction.ReferenceTables;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.hibernate.SessionFactory;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.persister.entity.AbstractEntityPersister;
import org.hibernate.persister.entity.EntityPersister;

/**
 * {@link ReferenceTables} written through one two-phase transaction over every shard (with
 * {@link ReferenceWrites} lifting the one-shard guard for its duration) and checked by comparing
 * per-shard checksums.
 */
public final class AtomicReferenceTables implements ReferenceTables {
  private final SessionFactory sessionFactory;
  private final Supplier<Set<String>> shardIds;
  private final Supplier<ShardingModel> model;
  private final PrimaryConnections primaries;
  private final Consumer<Consumer<CrossShardTransaction>> atomically;

  /**
   * @param atomically runs its argument as one cross-shard transaction (failing when cross-shard
   *     transactions are not configured)
   */
  public AtomicReferenceTables(SessionFactory sessionFactory, Supplier<Set<String>> shardIds,
      Supplier<ShardingModel> model, PrimaryConnections primaries,
      Consumer<Consumer<CrossShardTransaction>> atomically) {
    this.sessionFactory = sessionFactory;
    this.shardIds = shardIds;
    this.model = model;
    this.primaries = primaries;
    this.atomically = atomically;
  }

  @Override
  public void inTransaction(Consumer<org.hibernate.Session> work) {
    ReferenceWrites.allowDuring(() -> {
      atomically.accept(tx -> {
        for (String shardId : shardIds.get()) {
          tx.onShard(shardId, work);
        }
      });
      return null;
    });
  }

  @Override
  public Report check() {
    SessionFactoryImplementor sf = sessionFactory.unwrap(SessionFactoryImplementor.class);
    Map<String, Map<String, String>> checksums = new TreeMap<>();
    List<String> drift = new ArrayList<>();
    for (ShardedEntity entity : model.get().entities()) {
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
      for (String shardId : shardIds.get()) {
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
    try (Connection c = primaries.primary(shardId); Statement s = c.createStatement();
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
