package io.shardwise.hibernate;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.shardwise.hibernate.rw.Profile;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The threads a persistence unit holds do not grow with its shard count: a unit over 24 shards
 * holds as many as one over 8, once each has used every shard (a scatter) and HikariCP's
 * per-pool connection adders and closers have ended (they end on their own a few seconds after
 * their last task; the test waits for that, boundedly). Counted: every live thread whose name
 * carries the unit's name or one of its pools' names — HikariCP's housekeeping, the monitors, the
 * scatter pool (fixed at 4 threads here: its default grows to 16 with the first 8 shards and is
 * not what this test is about), the hedging threads.
 *
 * <p>Each shard is a database of its own on one server: the pools, breakers and monitor work are
 * per shard as with a server each, without starting 32 servers.
 */
@ShardedPostgres(shards = 1, scope = ShardedPostgres.Scope.RUN)
class ShardThreadsTest {
  private static final int FEW = 8;
  private static final int MANY = 24;

  @BeforeAll
  static void databases(@Node(shard = 0) PostgresNode server) throws SQLException {
    try (Connection c = server.dataSource().getConnection(); Statement s = c.createStatement()) {
      for (int i = 0; i < MANY; i++) {
        s.execute("CREATE DATABASE threads_" + i);
      }
    }
  }

  @Test
  void aUnitOver24ShardsHoldsAsManyThreadsAsOneOver8(@Node(shard = 0) PostgresNode server) {
    // both units are open at once, so HikariCP's idle adders and closers of both end within one wait
    try (SessionFactory fewShards = unit(server, FEW); SessionFactory manyShards = unit(server, MANY)) {
      scatter(fewShards);
      scatter(manyShards);
      List<String> few = threadsOnceIdle(unitName(FEW));
      List<String> many = threadsOnceIdle(unitName(MANY));
      assertEquals(few.size(), many.size(), "threads of a unit over " + FEW + " shards: " + few + "; over " + MANY
          + " shards: " + many);
    }
  }

  private static String unitName(int count) {
    return "fanout" + count + "x";
  }

  private static SessionFactory unit(PostgresNode server, int count) {
    String unit = unitName(count);
    Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null).schema("create")
        .entities(Profile.class).property("hibernate.persistenceUnitName", unit)
        .property(ShardwiseSettings.SCATTER_THREADS, "4")
        .property(ShardwiseSettings.RYW_SECRET, "0123456789abcdef0123456789abcdef-test-only");
    for (int i = 0; i < count; i++) {
      builder.shard(unit + "_" + i, server.jdbcUrl("threads_" + i));
    }
    return builder.buildSessionFactory();
  }

  /** A scatter over every shard of the unit, so that each shard's pool has been used. */
  private static void scatter(SessionFactory sessionFactory) {
    long profiles = ShardedSessions.of(sessionFactory).scatter()
        .createQuery("select count(p) from Profile p", Long.class).getSingleResult();
    assertEquals(0, profiles);
  }

  /** The unit's threads once its pools' adders and closers have ended, named without the shard count. */
  private static List<String> threadsOnceIdle(String unit) {
    // HikariCP's connection adder and closer of each pool end a few seconds after their last task
    await().atMost(Duration.ofSeconds(60)).until(() -> threadsOf(unit).stream()
        .noneMatch(name -> name.endsWith(":connection-adder") || name.endsWith(":connection-closer")));
    return threadsOf(unit).stream().map(name -> name.replace(unit, "UNIT").replaceAll("UNIT_\\d+", "UNIT_n"))
        .sorted().toList();
  }

  private static List<String> threadsOf(String unit) {
    return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(name -> name.contains(unit))
        .toList();
  }
}
