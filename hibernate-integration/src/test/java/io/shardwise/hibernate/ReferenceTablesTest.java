package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.transaction.ReferenceTableWriteException;
import io.shardwise.hibernate.transaction.ReferenceTables;
import io.shardwise.hibernate.transaction.internal.CoordinatorCrash;
import io.shardwise.hibernate.transaction.internal.FaultInjector.Point;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/** Reference tables change on every shard in one two-phase transaction; the checker names drifted shards. */
@ShardedPostgres(shards = 2)
class ReferenceTablesTest {

  @Test
  void writesReachEveryShardAtomically_andTheCheckerReportsDrift(PostgresTopology pg) throws Exception {
    try (SessionFactory sf = BankFixture.openWithAccounts(pg, 0)) {
      ShardedSessions shards = ShardedSessions.of(sf);
      ReferenceTables reference = shards.referenceTables();

      reference.inTransaction(s -> s.persist(new Country("PT", "Portugal")));
      reference.inTransaction(s -> s.persist(new Country("FR", "France")));
      assertEquals(List.of(0, 1), ShopFixture.shardsHolding(pg, "SELECT count(*) FROM Country WHERE code = 'PT'"));
      ReferenceTables.Report report = reference.check();
      assertTrue(report.consistent(), report.toString());
      assertTrue(report.checksums().get("Country").values().stream().allMatch(v -> v.startsWith("2:")), report.toString());

      // work that fails on the second shard changes no shard
      AtomicInteger calls = new AtomicInteger();
      assertThrows(IllegalStateException.class, () -> reference.inTransaction(s -> {
        s.persist(new Country("ES", "Spain"));
        if (calls.incrementAndGet() == 2) {
          throw new IllegalStateException("refused on the second shard");
        }
      }));
      assertEquals(List.of(), ShopFixture.shardsHolding(pg, "SELECT count(*) FROM Country WHERE code = 'ES'"));

      // a coordinator crash after the decision (the deciding shard committed, the other is prepared):
      // recovery completes the write everywhere
      BankFixture.service(sf).faultInjector((point, gid, shard) -> {
        if (point == Point.AFTER_DECISION) {
          throw new CoordinatorCrash("dies between the commits of " + gid);
        }
      });
      assertThrows(CoordinatorCrash.class, () -> reference.inTransaction(s -> s.persist(new Country("IT", "Italy"))));
      BankFixture.service(sf).faultInjector(null);
      assertEquals(1, BankFixture.service(sf).recoverNow().committed());
      assertEquals(List.of(0, 1), ShopFixture.shardsHolding(pg, "SELECT count(*) FROM Country WHERE code = 'IT'"));
      assertTrue(reference.check().consistent());

      // outside the reference API, a shard session still refuses
      assertThrows(ReferenceTableWriteException.class,
          () -> shards.forShard("shard0").inTransaction(s -> s.persist(new Country("DE", "Germany"))));

      // drift made behind Shardwise's back is reported, naming the shard
      try (Connection c = pg.shard(1).primary().dataSource().getConnection(); Statement s = c.createStatement()) {
        s.execute("UPDATE Country SET name = 'Francia' WHERE code = 'FR'");
      }
      ReferenceTables.Report drifted = reference.check();
      assertFalse(drifted.consistent());
      assertEquals(1, drifted.drift().size(), drifted.drift().toString());
      String line = drifted.drift().get(0);
      assertTrue(line.contains("Country") && line.contains("[shard0]") && line.contains("[shard1]"), line);
    }
  }
}
