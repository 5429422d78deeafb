package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.guard.Journal;
import io.shardwise.hibernate.guard.Ledger;
import io.shardwise.hibernate.harness.ShardedUnit;
import io.shardwise.hibernate.internal.query.GuardedHqlTranslator;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.util.List;
import org.hibernate.SessionFactory;
import org.hibernate.query.hql.HqlTranslator;
import org.hibernate.query.sqm.tree.SqmStatement;
import org.junit.jupiter.api.Test;

/**
 * Sharded units whose queries cannot be guarded do not start: another HQL translator, or a named
 * query without the shard key. The guard at run time is {@link QueryGuardCases}, on every layout.
 */
// the 3-shard topology the other start-up tests share
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class QueryGuardTest {

  @Test
  void aShardedUnitWhoseTranslatorIsNotTheGuardDoesNotStart(PostgresTopology pg) {
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class,
        () -> ShopFixture.builder(pg).property(GuardedHqlTranslator.SETTING, OtherTranslator.class.getName())
            .buildSessionFactory().close());
    assertTrue(e.getMessage().contains("set hibernate.query.hql.translator = " + GuardedHqlTranslator.class.getName()),
        e.getMessage());
  }

  @Test
  void namedQueriesAreJudgedAtStartupAndScatterGatherAdmitsThemByName(PostgresTopology pg) {
    SessionFactory admitted = unit(pg, Ledger.class).buildSessionFactory();
    try {
      List<Ledger> everywhere = ShardedSessions.of(admitted).forKey(1L)
          .fromSession(s -> s.createNamedQuery("Ledger.all", Ledger.class).getResultList());
      assertEquals(List.of(), everywhere, "Ledger.all is @ScatterGather: admitted");
    } finally {
      admitted.close();
    }

    ShardKeyMissingException e = assertThrows(ShardKeyMissingException.class,
        () -> unit(pg, Ledger.class, Journal.class).buildSessionFactory().close());
    assertTrue(e.getMessage().startsWith("Query \"from Journal j\""), e.getMessage());
  }

  private static Shardwise.Builder unit(PostgresTopology pg, Class<?>... entities) {
    return ShardedUnit.configure(pg, false).schema("create").entities(entities);
  }

  /** An application's own translator, which Shardwise does not silently replace. */
  public static final class OtherTranslator implements HqlTranslator {
    @Override
    public <R> SqmStatement<R> translate(String hql, Class<R> expectedResultType) {
      throw new UnsupportedOperationException("never called: the unit does not start");
    }
  }
}
