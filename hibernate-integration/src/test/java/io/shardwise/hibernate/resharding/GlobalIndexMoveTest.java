package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ShardKeyType;
import io.shardwise.hibernate.scatter.Customer;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.util.List;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/** A move carries the {@code @GlobalIndex} lookup rows of its buckets: every lookup still finds its entity. */
@ShardedPostgres(shards = 2, scope = ShardedPostgres.Scope.RUN)
class GlobalIndexMoveTest {
  static final String DB = "gidx_app";

  @Test
  void lookupRowsMoveWithTheirBuckets(PostgresTopology pg) throws Exception {
    MoveFixture.freshDatabases(pg, DB);
    String s0 = pg.shard(0).primary().jdbcUrl(DB);
    String s1 = pg.shard(1).primary().jdbcUrl(DB);
    try (SessionFactory sf = Shardwise.configure().credentials("postgres", null).entities(Customer.class)
        .shard("s0", s0).shard("s1", s1).controlDatabase(MoveFixture.controlUrl(pg, DB), true)
        .property("shardwise.reshard.fence_grace_ms", "0")
        .property("shardwise.reshard.pause_limit_ms", MoveFixture.PAUSE_LIMIT_MS).schema("create").buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      for (long id = 1; id <= 120; id++) {
        long customer = id;
        shards.forKey(customer).inTransaction(s -> s.persist(new Customer(customer, "c" + customer + "@example.com")));
      }
      String lookup = "shardwise.gidx_customer_email";
      String valueBucket = BucketStrategy.sqlBucket(ShardKeyType.STRING, "value", 1024);
      long movingLookups = MoveFixture.count(s0, "SELECT count(*) FROM " + lookup + " WHERE " + valueBucket + " <= 170");
      assertTrue(movingLookups > 0, "some lookup rows sit in the moving buckets");

      Resharding moves = shards.resharding();
      ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", BucketRanges.parse("0-170"), List.of()), p -> { });
      assertEquals(ReshardPhase.VERIFIED, w.phase(), String.valueOf(w.lastError()));
      assertTrue(w.tables().stream().anyMatch(t -> t.name().equals(lookup)), w.tables().toString());
      // during the move the target holds copies of the moving customers: a backfill indexes each customer once
      org.awaitility.Awaitility.await().until(() -> shards.shardMap().hasCopies());
      assertEquals(120, shards.backfillGlobalIndex(Customer.class, "email", p -> { }));
      assertTrue(moves.switchWrites(w.id()).switched());
      assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());

      assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM " + lookup + " WHERE " + valueBucket + " <= 170"));
      assertEquals(movingLookups, MoveFixture.count(s1, "SELECT count(*) FROM " + lookup + " WHERE " + valueBucket
          + " <= 170"));
      for (long id = 1; id <= 120; id++) {
        long customer = id;
        assertEquals(customer, shards.findBy(Customer.class, "email", "c" + id + "@example.com")
            .map(Customer::getId).orElseThrow(() -> new AssertionError("customer " + customer + " not found by email")));
      }
    }
  }
}
