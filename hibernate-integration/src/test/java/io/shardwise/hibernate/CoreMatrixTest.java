package io.shardwise.hibernate;

import io.shardwise.hibernate.harness.Layout;
import io.shardwise.hibernate.harness.ShardedUnit;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The core matrix: the write guard, the query guards (HQL and criteria) and sharded persistence,
 * each run on every {@link Layout} — bucket, ring, range and directory routing at 1, 2, 3 and 5
 * shards — over one shared 5-primary topology. Each layout gets one shop session factory for all
 * its tests ({@link ShopFixture#unit}); after every test the harness checks that every row sits on
 * the shard its key routes to and that no connection leaked, and after the layout that no
 * connection or server outlived its session factory ({@link ShardedUnit}).
 *
 * <p>The cases live in their own classes ({@link ShardGuardCases}, {@link QueryGuardCases},
 * {@link CriteriaGuardCases}, {@link ShardedPersistenceCases}); to run one on the matrix, add a
 * {@code @Nested} class here that extends it.
 */
@ShardedPostgres(shards = Layout.MAX_SHARDS, scope = ShardedPostgres.Scope.RUN, settings = "log_statement='all'")
@ParameterizedClass(name = "{0}")
@MethodSource("io.shardwise.hibernate.harness.Layout#all")
class CoreMatrixTest {
  /** The unit of the layout being run; the cases read it when they are created. */
  static ShardedUnit unit;

  CoreMatrixTest(Layout layout) {
    // the layout reaches the cases through the unit
  }

  @BeforeParameterizedClassInvocation
  static void start(Layout layout, PostgresTopology pg) {
    unit = ShopFixture.unit(pg, layout);
  }

  @AfterParameterizedClassInvocation
  static void stop() {
    try {
      unit.close();
    } finally {
      unit = null;
    }
  }

  @BeforeEach
  void emptyTables() throws SQLException {
    ShopFixture.resetWithGreatBritain(unit);
  }

  @AfterEach
  void everyRowOnItsShardAndNoConnectionLeaked() throws SQLException {
    unit.assertInvariants();
  }

  @Nested
  class ShardGuard extends ShardGuardCases {}

  @Nested
  class QueryGuard extends QueryGuardCases {}

  @Nested
  class CriteriaGuard extends CriteriaGuardCases {}

  @Nested
  class Persistence extends ShardedPersistenceCases {}
}
