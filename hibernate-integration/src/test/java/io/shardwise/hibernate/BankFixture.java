package io.shardwise.hibernate;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.shardwise.hibernate.bank.Account;
import io.shardwise.hibernate.bank.TransferLeg;
import io.shardwise.hibernate.wiring.internal.ShardwiseComponents;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import io.shardwise.hibernate.transaction.internal.CrossShardService;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.SessionFactory;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * A bank over a testkit topology: accounts spread over the shards, transfers that record a leg per
 * account, the control database on shard 0. Inspects shards by direct JDBC.
 */
final class BankFixture {
  static final long INITIAL = 1_000;

  private BankFixture() {}

  /** Recovery runs when a test calls it: the daemon's interval is ten minutes. */
  static Shardwise.Builder builder(PostgresTopology pg) {
    return builder(pg, Duration.ofMinutes(10));
  }

  /** With the recovery daemon running every {@code recoveryInterval}, for tests that watch it work. */
  static Shardwise.Builder builder(PostgresTopology pg, Duration recoveryInterval) {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null)
        .entities(Account.class, TransferLeg.class, Country.class)
        .controlDatabase(pg.shard(0).primary().jdbcUrl(), true)
        .property(ShardwiseSettings.POOL_SIZE, "3")
        .property(ShardwiseSettings.CONNECTION_TIMEOUT, "2000")
        .property(ShardwiseSettings.TX_RECOVERY_INTERVAL, Long.toString(recoveryInterval.toMillis()));
    for (PostgresShard shard : pg.shards()) {
      // a lock wait beyond 5 s fails instead of hanging a test that left a transaction in doubt
      b.shard(ShopFixture.shardId(shard.index()), shard.primary().jdbcUrl() + "?options=-c%20lock_timeout%3D5000");
    }
    return b;
  }

  /**
   * {@code b} with the first replica of every shard, a fresh schema, once every replica has caught up
   * and is healthy (reads of read-only sessions then go to the replicas).
   */
  static SessionFactory withHealthyReplicas(PostgresTopology pg, Shardwise.Builder b) {
    SessionFactory sessionFactory = withReplicas(b, pg).schema("create").buildSessionFactory();
    awaitReplicasServing(pg, ShardedSessions.of(sessionFactory));
    return sessionFactory;
  }

  /** {@code b} with the first replica of every shard of the topology. */
  static Shardwise.Builder withReplicas(Shardwise.Builder b, PostgresTopology pg) {
    for (PostgresShard shard : pg.shards()) {
      b.replica(ShopFixture.shardId(shard.index()), shard.replica(0).jdbcUrl());
    }
    return b;
  }

  /** Waits until every replica has replayed its primary's WAL and the replica monitor serves reads from all of them. */
  static void awaitReplicasServing(PostgresTopology pg, ShardedSessions shards) {
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      shards.checkReplicasNow();
      return shards.replicaStatus().stream().allMatch(ReplicaStatus::healthy);
    });
  }

  /** A fresh schema with {@code accounts} accounts of {@link #INITIAL} each. */
  static SessionFactory openWithAccounts(PostgresTopology pg, int accounts) {
    SessionFactory sf = builder(pg).schema("create").buildSessionFactory();
    ShardedSessions shards = ShardedSessions.of(sf);
    for (long id = 1; id <= accounts; id++) {
      long key = id;
      shards.forKey(key).inTransaction(s -> s.persist(new Account(key, INITIAL)));
    }
    return sf;
  }

  static CrossShardService service(SessionFactory sf) {
    MultiTenantConnectionProvider<?> provider = sf.unwrap(SessionFactoryImplementor.class).getServiceRegistry()
        .getService(MultiTenantConnectionProvider.class);
    return ((ShardwiseConnectionProvider) provider).unwrap(ShardwiseComponents.class).crossShard("test");
  }

  static long key(ShardedSessions shards, String shardId, long from) {
    for (long k = from; ; k++) {
      if (shards.shardFor(k).equals(shardId)) {
        return k;
      }
    }
  }

  /** A transfer as one atomic cross-shard transaction, locking the lower account id first. */
  static void transfer(ShardedSessions shards, String transferId, long from, long to, long amount) {
    shards.atomically(tx -> {
      for (long id : new long[] {Math.min(from, to), Math.max(from, to)}) {
        tx.on(id, s -> {
          Account a = s.find(Account.class, id);
          if (id == from) {
            a.withdraw(amount);
            s.persist(new TransferLeg(transferId, id, -amount));
          } else {
            a.deposit(amount);
            s.persist(new TransferLeg(transferId, id, amount));
          }
        });
      }
    });
  }

  // --- inspection by direct JDBC ------------------------------------------------------------

  static List<String> preparedTransactions(PostgresTopology pg) throws SQLException {
    List<String> gids = new ArrayList<>();
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT gid FROM pg_prepared_xacts")) {
        while (rs.next()) {
          gids.add(shard.index() + ":" + rs.getString(1));
        }
      }
    }
    return gids;
  }

  static Map<Long, Long> balances(PostgresTopology pg) throws SQLException {
    Map<Long, Long> balances = new HashMap<>();
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT id, balance FROM Account")) {
        while (rs.next()) {
          assertEquals(null, balances.put(rs.getLong(1), rs.getLong(2)), "account " + rs.getLong(1) + " on two shards");
        }
      }
    }
    return balances;
  }

  static long total(PostgresTopology pg) throws SQLException {
    return balances(pg).values().stream().mapToLong(Long::longValue).sum();
  }

  /** Transfer id → its legs found on any shard. */
  static Map<String, Integer> legsByTransfer(PostgresTopology pg) throws SQLException {
    Map<String, Integer> legs = new HashMap<>();
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT transferId, count(*) FROM TransferLeg GROUP BY transferId")) {
        while (rs.next()) {
          legs.merge(rs.getString(1), rs.getInt(2), Integer::sum);
        }
      }
    }
    return legs;
  }

  /** Account → the sum of its legs: what its balance moved by. */
  static Map<Long, Long> legSums(PostgresTopology pg) throws SQLException {
    Map<Long, Long> sums = new HashMap<>();
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT accountId, sum(amount) FROM TransferLeg GROUP BY accountId")) {
        while (rs.next()) {
          sums.put(rs.getLong(1), rs.getLong(2));
        }
      }
    }
    return sums;
  }
}
