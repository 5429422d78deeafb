package io.shardwise.hibernate.transaction;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.hibernate.Session;

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
public interface ReferenceTables {

  /**
   * Runs {@code work} once per shard, each time in that shard's session, all in one atomic
   * cross-shard transaction. The work must do the same thing every time (create new entity
   * instances inside it, do not share one instance between calls).
   *
   * @throws CrossShardAbortedException if any shard refused: no copy changed
   */
  void inTransaction(Consumer<Session> work);

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

  Report check();
}
