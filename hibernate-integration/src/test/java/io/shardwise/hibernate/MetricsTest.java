package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardwise.hibernate.bank.Account;
import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.rw.Profile;
import io.shardwise.hibernate.rw.TimedProfile;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.util.concurrent.atomic.AtomicLong;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Micrometer meters on real PostgreSQL (two shards, one streaming replica each, the control
 * database on shard 0): after known operations each counter holds exactly the expected value for
 * each shard tag. Counters are compared before and after each operation, so the tests share one
 * session factory and do not depend on their order.
 */
@ShardedPostgres(shards = 2, replicas = 1)
class MetricsTest {
  private static final String S0 = "shard0";
  private static final String S1 = "shard1";
  private static final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  private static PostgresTopology topology;
  private static final AtomicLong nextKey = new AtomicLong(1_000);

  @BeforeAll
  static void start(PostgresTopology pg) {
    topology = pg;
    sessionFactory = BankFixture.withHealthyReplicas(pg, BankFixture.builder(pg).entities(Profile.class, TimedProfile.class)
        .property(ShardwiseSettings.RYW_SECRET, "0123456789abcdef0123456789abcdef-test-only")
        .meterRegistry(registry));
    shards = ShardedSessions.of(sessionFactory);
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  @Test
  void sessionsAreCountedPerShardAndKind() {
    double key0 = sessions(S0, "key");
    double key1 = sessions(S1, "key");
    for (int i = 0; i < 3; i++) {
      long k = keyOn(S0);
      shards.forKey(k).inTransaction(s -> s.persist(new Account(k, 10)));
    }
    for (int i = 0; i < 2; i++) {
      long k = keyOn(S1);
      shards.forKey(k).readOnly().fromSession(s -> s.find(Account.class, k));
    }
    assertEquals(3, sessions(S0, "key") - key0);
    assertEquals(2, sessions(S1, "key") - key1);

    double shard1 = sessions(S1, "shard");
    shards.forShard(S1).inSession(s -> s.createNativeQuery("select 1", Integer.class).getSingleResult());
    assertEquals(1, sessions(S1, "shard") - shard1);

    double context0 = sessions(S0, "context");
    try (ShardContext.Scope ignored = shards.contextForKey(keyOn(S0)); Session s = sessionFactory.openSession()) {
      s.createNativeQuery("select 1", Integer.class).getSingleResult();
    }
    assertEquals(1, sessions(S0, "context") - context0);

    double noShard = sessions("none", "no-shard");
    try (Session s = sessionFactory.openSession()) {
      assertNotNull(s);
    }
    assertEquals(1, sessions("none", "no-shard") - noShard);
  }

  /**
   * A session opened by key while the thread's {@link ShardContext} names another shard: it runs on
   * the key's shard (proved by the server's port), counts as a key session there, and leaves the
   * context as it was for the sessions opened the ordinary way after it.
   */
  @Test
  void aKeySessionInsideAnotherShardsContextRunsOnTheKeysShardAndLeavesTheContextAlone() {
    long onS1 = keyOn(S1);
    double key1 = sessions(S1, "key");
    double context0 = sessions(S0, "context");
    try (ShardContext.Scope ignored = shards.contextForKey(keyOn(S0))) {
      int port = shards.forKey(onS1).fromSession(s -> s.createNativeQuery("select inet_server_port()",
          Integer.class).getSingleResult());
      assertEquals(topology.shard(1).primary().port(), port);
      assertEquals(S0, ShardContext.current());
      try (Session s = sessionFactory.openSession()) {
        assertEquals(S0, s.getTenantIdentifier());
        int contextPort = s.createNativeQuery("select inet_server_port()", Integer.class).getSingleResult();
        assertEquals(topology.shard(0).primary().port(), contextPort);
      }
    }
    assertNull(ShardContext.current());
    assertEquals(1, sessions(S1, "key") - key1);
    assertEquals(1, sessions(S0, "context") - context0);
  }

  @Test
  void scatterRecordsFanOutAndOneTimedPartPerShard() {
    long fanOutCount = registry.get("shardwise.scatter.fanout").summary().count();
    double fanOutTotal = registry.get("shardwise.scatter.fanout").summary().totalAmount();
    long timed0 = scatterTimer(S0);
    long timed1 = scatterTimer(S1);
    double scatter0 = sessions(S0, "scatter");
    shards.scatter().createQuery("select a.id from Account a", Long.class).getResultList();
    assertEquals(1, registry.get("shardwise.scatter.fanout").summary().count() - fanOutCount);
    assertEquals(2, registry.get("shardwise.scatter.fanout").summary().totalAmount() - fanOutTotal);
    assertEquals(1, scatterTimer(S0) - timed0);
    assertEquals(1, scatterTimer(S1) - timed1);
    assertEquals(1, sessions(S0, "scatter") - scatter0);
  }

  @Test
  void poolMetersOfHikariCpCarryShardRoleAndNode() {
    long k0 = keyOn(S0);
    long k1 = keyOn(S1);
    shards.forKey(k0).inTransaction(s -> s.find(Account.class, k0));
    shards.forKey(k1).inTransaction(s -> s.find(Account.class, k1));
    shards.forKey(k0).readOnly().inSession(s -> s.find(Account.class, k0));
    shards.forKey(k1).readOnly().inSession(s -> s.find(Account.class, k1));
    for (String shard : new String[] {S0, S1}) {
      for (String role : new String[] {"primary", "replica"}) {
        Gauge total = registry.find("hikaricp.connections").tags("shard", shard, "role", role).gauge();
        assertNotNull(total, "hikaricp.connections of " + shard + " " + role);
        assertTrue(total.getId().getTag("node").matches(".+:\\d+"), total.getId().toString());
        assertTrue(total.getId().getTag("pool").startsWith("shardwise-" + shard + "-" + role),
            total.getId().toString());
      }
    }
  }

  @Test
  void everyReplicaHasLagAndStateGauges() {
    for (String shard : new String[] {S0, S1}) {
      Gauge lagBytes = registry.find("shardwise.replica.lag.bytes").tags("shard", shard, "role", "replica").gauge();
      Gauge lag = registry.find("shardwise.replica.lag").tags("shard", shard, "role", "replica").gauge();
      Gauge healthy = registry.find("shardwise.replica.healthy").tags("shard", shard, "role", "replica").gauge();
      assertNotNull(lagBytes, shard);
      assertNotNull(lag, shard);
      assertNotNull(healthy, shard);
      assertTrue(lagBytes.value() >= 0, "lag of a checked, streaming replica is known: " + lagBytes.value());
      assertEquals(1, healthy.value());
      assertEquals(1, registry.find("shardwise.replica.healthy").tags("shard", shard).gauges().size(),
          "one replica per shard");
    }
  }

  @Test
  void readsPinnedToThePrimaryAreCounted() {
    long user = keyOn(S1);
    ConsistencyScope scope = shards.consistency().scope("user:" + user);
    double pinned = counter("shardwise.ryw.primary.reads", S1);
    double primaryReads = registry.get("shardwise.reads").tags("shard", S1, "role", "primary").counter().count();
    shards.forKey(user).within(scope).inTransaction(s -> s.persist(new TimedProfile(user, "v1")));
    shards.forKey(user).within(scope).readOnly().fromSession(s -> s.find(TimedProfile.class, user));
    assertEquals(1, counter("shardwise.ryw.primary.reads", S1) - pinned);
    assertEquals(1, registry.get("shardwise.reads").tags("shard", S1, "role", "primary").counter().count()
        - primaryReads);
  }

  @Test
  void crossShardOutcomesAreCountedOnEveryShardTouched() {
    long a = keyOn(S0);
    long b = keyOn(S1);
    shards.forKey(a).inTransaction(s -> s.persist(new Account(a, 100)));
    shards.forKey(b).inTransaction(s -> s.persist(new Account(b, 100)));
    double committed0 = crossShard(S0, "committed");
    double committed1 = crossShard(S1, "committed");
    double aborted0 = crossShard(S0, "aborted");
    double aborted1 = crossShard(S1, "aborted");
    BankFixture.transfer(shards, "t-" + a, a, b, 5);
    assertEquals(1, crossShard(S0, "committed") - committed0);
    assertEquals(1, crossShard(S1, "committed") - committed1);

    assertThrows(IllegalStateException.class, () -> shards.atomically(tx -> {
      tx.on(a, s -> s.find(Account.class, a).withdraw(1));
      tx.on(b, s -> s.find(Account.class, b).deposit(1));
      throw new IllegalStateException("changed my mind");
    }));
    assertEquals(1, crossShard(S0, "aborted") - aborted0);
    assertEquals(1, crossShard(S1, "aborted") - aborted1);
    assertNull(registry.find("shardwise.crossshard.transactions").tags("outcome", "in-doubt").counter());
  }

  @Test
  void theShardMapVersionAndEachShardsBucketsArePublished() {
    io.shardwise.hibernate.routing.ShardMap map = shards.shardMap();
    assertEquals(map.version(), registry.get("shardwise.shardmap.version").gauge().value());
    double total = 0;
    for (String shard : new String[] {S0, S1}) {
      int owned = 0;
      for (int bucket = 0; bucket < map.bucketCount(); bucket++) {
        owned += map.ownerOf(bucket).equals(shard) ? 1 : 0;
      }
      double gauge = registry.get("shardwise.shard.buckets").tags("shard", shard).gauge().value();
      assertEquals(owned, gauge, shard);
      total += gauge;
    }
    assertEquals(map.bucketCount(), total);
    assertNotNull(registry.find("shardwise.shardmap.changes").counter());
  }

  /**
   * A transaction prepared by hand on shard 0's primary (found by its port) shows in the gauge of
   * shard 0 only, and leaves it once rolled back. The gauge reads on scrape with a short cache, so
   * the test polls with a deadline.
   */
  @Test
  void aPreparedTransactionShowsInTheGaugeOfItsShardOnly() throws Exception {
    var primary0 = topology.shard(0).primary();
    assertEquals(0, prepared(S0), "no prepared transaction on shard 0 before the test");
    assertEquals(0, prepared(S1), "no prepared transaction on shard 1 before the test");
    String gid = "metrics-test-" + nextKey.incrementAndGet();
    try (java.sql.Connection c = primary0.dataSource().getConnection();
        java.sql.Statement st = c.createStatement()) {
      var rs = st.executeQuery("select inet_server_port()");
      rs.next();
      assertEquals(primary0.port(), rs.getInt(1), "prepared on shard 0's primary");
      c.setAutoCommit(false);
      st.execute("select 1");
      st.execute("prepare transaction '" + gid + "'");
      c.setAutoCommit(true);
    }
    try {
      assertEquals(1, pollPrepared(S0, 1), "the prepared transaction on shard 0");
      assertEquals(0, prepared(S1), "shard 1 has none");
    } finally {
      try (java.sql.Connection c = primary0.dataSource().getConnection();
          java.sql.Statement st = c.createStatement()) {
        st.execute("rollback prepared '" + gid + "'");
      }
    }
    assertEquals(0, pollPrepared(S0, 0), "gone once rolled back");
  }

  @Test
  void aReadYourWritesWritePinsItsShardInTheGauge() {
    long user = keyOn(S1);
    ConsistencyScope scope = shards.consistency().scope("pins:" + user);
    double pins1 = pins(S1);
    double pins0 = pins(S0);
    shards.forKey(user).within(scope).inTransaction(s -> s.persist(new TimedProfile(user, "v1")));
    assertEquals(1, pins(S1) - pins1, "the scope's new pin on shard 1");
    assertEquals(0, pins(S0) - pins0, "no pin on shard 0");
  }

  /**
   * Transactions are timed on the connection, whichever API opened them: a transaction of a session
   * opened the ordinary way inside a {@link ShardContext} on shard 1 moves only shard 1's
   * read-write committed timer, once, and it ran on shard 1's primary.
   */
  @Test
  void aTransactionInTransparentModeIsTimedOnItsShardOnly() {
    io.shardwise.testkit.PostgresNode primary1 = topology.shards().get(1).primary();
    long k1 = keyOn(S1);
    java.util.Map<java.util.List<String>, Long> before = transactionCounts();
    int port;
    try (ShardContext.Scope ignored = shards.contextForKey(k1); Session s = sessionFactory.openSession()) {
      org.hibernate.Transaction tx = s.beginTransaction();
      s.persist(new Account(k1, 10));
      s.flush();
      port = serverPort(s);
      tx.commit();
    }
    assertEquals(primary1.port(), port, "the transaction ran on shard 1's primary");
    assertOneTransaction(before, transactionCounts(), S1, "read-write", "committed",
        "one committed read-write transaction on shard 1, nothing else");
  }

  /** A transaction rolled back in transparent mode is timed as rolled back, once, on its shard. */
  @Test
  void aRollbackInTransparentModeIsTimedAsRolledBack() {
    long k1 = keyOn(S1);
    java.util.Map<java.util.List<String>, Long> before = transactionCounts();
    try (ShardContext.Scope ignored = shards.contextForKey(k1); Session s = sessionFactory.openSession()) {
      org.hibernate.Transaction tx = s.beginTransaction();
      s.persist(new Account(k1, 10));
      s.flush();
      tx.rollback();
      assertNull(s.find(Account.class, k1), "the insert was rolled back");
    }
    assertOneTransaction(before, transactionCounts(), S1, "read-write", "rolled-back",
        "one rolled-back transaction on shard 1, nothing else");
  }

  /**
   * A commit the server refuses (a deferred unique constraint checked at commit) is timed as
   * failed: the transaction did not commit, and the application did not roll it back.
   */
  @Test
  void aCommitTheServerRefusesIsTimedAsFailed() {
    long k0 = keyOn(S0);
    java.util.Map<java.util.List<String>, Long> before = transactionCounts();
    try (ShardContext.Scope ignored = shards.contextForKey(k0); Session s = sessionFactory.openSession()) {
      org.hibernate.Transaction tx = s.beginTransaction();
      s.doWork(c -> {
        try (java.sql.Statement st = c.createStatement()) {
          st.execute("create temp table metrics_deferred (id int unique deferrable initially deferred) on commit drop");
          st.execute("insert into metrics_deferred values (1), (1)");
        }
      });
      assertThrows(RuntimeException.class, tx::commit, "the deferred unique check fails at commit");
    }
    assertOneTransaction(before, transactionCounts(), S0, "read-write", "failed",
        "one failed transaction on shard 0, nothing else");
  }

  /**
   * A unit of work of {@code forKey(...).inTransaction} is timed once (on its connection, not also
   * by the route), and a rolled-back one once as rolled back.
   */
  @Test
  void aRouteUnitOfWorkIsTimedOnceNotTwice() {
    long k0 = keyOn(S0);
    java.util.Map<java.util.List<String>, Long> before = transactionCounts();
    shards.forKey(k0).inTransaction(s -> s.persist(new Account(k0, 10)));
    java.util.Map<java.util.List<String>, Long> afterCommit = transactionCounts();
    assertOneTransaction(before, afterCommit, S0, "read-write", "committed",
        "one committed transaction on shard 0, counted once");
    assertThrows(IllegalStateException.class, () -> shards.forKey(k0).inTransaction(s -> {
      s.find(Account.class, k0).deposit(1);
      throw new IllegalStateException("roll back");
    }));
    assertOneTransaction(afterCommit, transactionCounts(), S0, "read-write", "rolled-back",
        "one rolled-back transaction on shard 0, counted once");
  }

  /** A read-only unit of work served by shard 0's replica is timed as read-only on shard 0. */
  @Test
  void aReadOnlyUnitOnAReplicaIsTimedAsReadOnly() {
    long k0 = keyOn(S0);
    shards.forKey(k0).inTransaction(s -> s.persist(new Account(k0, 10)));
    java.util.Map<java.util.List<String>, Long> before = transactionCounts();
    int port = shards.forKey(k0).readOnly().fromTransaction(MetricsTest::serverPort);
    assertEquals(topology.shards().get(0).replica(0).port(), port, "shard 0's replica served the unit of work");
    assertOneTransaction(before, transactionCounts(), S0, "read-only", "committed",
        "one read-only transaction on shard 0, nothing else");
  }

  /**
   * A cross-shard transfer between shard 0 and shard 1: one shard's part is prepared, the other's
   * (the decider's) commits; each is timed once, and nothing else.
   */
  @Test
  void aCrossShardTransactionTimesOnePreparedAndOneCommittedPart() {
    long a = keyOn(S0);
    long b = keyOn(S1);
    shards.forKey(a).inTransaction(s -> s.persist(new Account(a, 100)));
    shards.forKey(b).inTransaction(s -> s.persist(new Account(b, 100)));
    java.util.Map<java.util.List<String>, Long> before = transactionCounts();
    BankFixture.transfer(shards, "tt-" + a, a, b, 5);
    java.util.Map<java.util.List<String>, Long> moved = moved(before, transactionCounts());
    assertTrue(moved.equals(java.util.Map.of(java.util.List.of(S0, "read-write", "prepared"), 1L,
        java.util.List.of(S1, "read-write", "committed"), 1L))
        || moved.equals(java.util.Map.of(java.util.List.of(S0, "read-write", "committed"), 1L,
            java.util.List.of(S1, "read-write", "prepared"), 1L)),
        "one shard's part prepared, the decider's committed: " + moved);
  }

  private static int serverPort(Session s) {
    return ((Number) s.createNativeQuery("select inet_server_port()", Object.class).getSingleResult()).intValue();
  }

  /** Asserts that from {@code before} to {@code after} exactly one transaction timer moved, by one. */
  private static void assertOneTransaction(java.util.Map<java.util.List<String>, Long> before,
      java.util.Map<java.util.List<String>, Long> after, String shard, String access, String outcome, String what) {
    assertEquals(java.util.Map.of(java.util.List.of(shard, access, outcome), 1L), moved(before, after), what);
  }

  /** Every transaction timer's count, by its shard, access and outcome tags. */
  private static java.util.Map<java.util.List<String>, Long> transactionCounts() {
    java.util.Map<java.util.List<String>, Long> counts = new java.util.HashMap<>();
    for (Timer t : registry.find("shardwise.transaction").timers()) {
      io.micrometer.core.instrument.Meter.Id id = t.getId();
      counts.put(java.util.List.of(id.getTag("shard"), id.getTag("access"), id.getTag("outcome")), t.count());
    }
    return counts;
  }

  /**
   * Statements are timed per server: a write on shard 0 moves only the timers of shard 0's primary,
   * a read-only session only those of the replica that served it; the {@code node} tag names the
   * server that answered, as the server itself reports its port.
   */
  @Test
  void statementsAreTimedOnTheServerThatRanThem() {
    long k0 = keyOn(S0);
    java.util.Map<java.util.List<String>, Long> before = statements();
    int primaryPort = shards.forKey(k0).fromTransaction(s -> {
      s.persist(new Account(k0, 10));
      s.flush();
      return ((Number) s.createNativeQuery("select inet_server_port()", Object.class).getSingleResult()).intValue();
    });
    java.util.Map<java.util.List<String>, Long> afterWrite = statements();
    io.shardwise.testkit.PostgresNode primary = topology.shards().get(0).primary();
    io.shardwise.testkit.PostgresNode replica = topology.shards().get(0).replica(0);
    assertEquals(primary.port(), primaryPort, "the write ran on shard 0's primary");
    String primaryNode = primary.host() + ":" + primary.port();
    java.util.Map<java.util.List<String>, Long> moved = moved(before, afterWrite);
    assertEquals(1, moved.get(java.util.List.of(S0, "primary", primaryNode, "query", "success")),
        "the port query on shard 0's primary: " + moved);
    assertTrue(moved.getOrDefault(java.util.List.of(S0, "primary", primaryNode, "update", "success"), 0L)
        + moved.getOrDefault(java.util.List.of(S0, "primary", primaryNode, "batch", "success"), 0L) >= 1,
        "the insert on shard 0's primary: " + moved);
    for (java.util.List<String> id : moved.keySet()) {
      assertEquals(java.util.List.of(S0, "primary", primaryNode), id.subList(0, 3),
          "only shard 0's primary moved: " + moved);
    }

    int replicaPort = shards.forKey(k0).readOnly().fromSession(s -> ((Number) s.createNativeQuery(
        "select inet_server_port()", Object.class).getSingleResult()).intValue());
    assertEquals(replica.port(), replicaPort, "the read-only session was served by shard 0's replica");
    java.util.Map<java.util.List<String>, Long> read = moved(afterWrite, statements());
    assertEquals(java.util.Map.of(java.util.List.of(S0, "replica", replica.host() + ":" + replica.port(), "query",
        "success"), 1L), read, "one query, on the replica that answered, and nothing else");
  }

  /** A callable statement (a stored function) is timed like any other, on the server that ran it. */
  @Test
  void callableStatementsAreTimedToo() {
    long k0 = keyOn(S0);
    java.util.Map<java.util.List<String>, Long> before = statements();
    String upper = shards.forKey(k0).fromTransaction(s -> s.doReturningWork(c -> {
      try (java.sql.CallableStatement call = c.prepareCall("{ ? = call upper( ? ) }")) {
        call.registerOutParameter(1, java.sql.Types.VARCHAR);
        call.setString(2, "shard");
        call.execute();
        return call.getString(1);
      }
    }));
    assertEquals("SHARD", upper);
    io.shardwise.testkit.PostgresNode primary = topology.shards().get(0).primary();
    assertEquals(java.util.Map.of(java.util.List.of(S0, "primary", primary.host() + ":" + primary.port(), "execute",
        "success"), 1L), moved(before, statements()), "one call, timed on shard 0's primary");
  }

  /** Every statement timer's count, by its shard, role, node, operation and outcome tags. */
  private static java.util.Map<java.util.List<String>, Long> statements() {
    java.util.Map<java.util.List<String>, Long> counts = new java.util.HashMap<>();
    for (Timer t : registry.find("shardwise.statement").timers()) {
      io.micrometer.core.instrument.Meter.Id id = t.getId();
      counts.put(java.util.List.of(id.getTag("shard"), id.getTag("role"), id.getTag("node"), id.getTag("operation"),
          id.getTag("outcome")), t.count());
    }
    return counts;
  }

  /** The timers whose count changed from {@code before} to {@code after}, and by how much. */
  private static java.util.Map<java.util.List<String>, Long> moved(java.util.Map<java.util.List<String>, Long> before,
      java.util.Map<java.util.List<String>, Long> after) {
    java.util.Map<java.util.List<String>, Long> moved = new java.util.HashMap<>();
    after.forEach((id, count) -> {
      long delta = count - before.getOrDefault(id, 0L);
      if (delta != 0) {
        moved.put(id, delta);
      }
    });
    return moved;
  }

  /** A completed saga shows in the control database's count of completed sagas, and not as running. */
  @Test
  void aCompletedSagaIsCountedByState() {
    long k0 = keyOn(S0);
    shards.forKey(k0).inTransaction(s -> s.persist(new Account(k0, 10)));
    double completed = sagas("completed");
    double running = sagas("running");
    var sagas = shards.sagas().register(io.shardwise.hibernate.transaction.SagaDefinition.named("metrics-deposit")
        .step("deposit", p -> Long.parseLong(p), (s, p) -> s.find(Account.class, Long.parseLong(p)).deposit(1),
            (s, p) -> s.find(Account.class, Long.parseLong(p)).adjust(-1))
        .build());
    assertEquals("COMPLETED", sagas.run("metrics-deposit", Long.toString(k0)).state());
    long until = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
    while (sagas("completed") != completed + 1 && System.nanoTime() < until) {
      Thread.onSpinWait();
    }
    assertEquals(1, sagas("completed") - completed);
    assertEquals(running, sagas("running"));
  }

  private static double sagas(String state) {
    return registry.get("shardwise.sagas").tags("state", state).gauge().value();
  }

  /** Each kind of guard refusal, provoked once, moves its own counter by one and no other. */
  @Test
  void everyKindOfGuardRefusalIsCounted() {
    long k0 = keyOn(S0);
    long k1 = keyOn(S1);
    shards.forKey(k0).inTransaction(s -> s.persist(new Account(k0, 10)));

    assertRefusal("missing-key", ShardKeyMissingException.class, () -> shards.forKey(k0).fromSession(s ->
        s.createQuery("select a from Account a", Account.class).getResultList()));
    assertRefusal("missing-key", ShardKeyException.class, () -> shards.forKey((Object) null));
    assertRefusal("missing-key", ShardKeyException.class, () -> shards.contextForKey(null));
    assertRefusal("wrong-shard", ShardKeyException.class, () -> shards.forKey(k0).inTransaction(s ->
        s.persist(new Account(k1, 10))));
    assertRefusal("no-shard", NoShardSelectedException.class, () -> {
      // JDBC work in a session without a shard: the statement names no key, so nothing can bind the session
      try (Session s = sessionFactory.openSession()) {
        s.doWork(c -> c.prepareStatement("select count(*) from Account").executeQuery());
      }
    });
    assertRefusal("row-lock-read-only", io.shardwise.hibernate.readwrite.RowLockInReadOnlySessionException.class,
        () -> shards.forKey(k0).readOnly().fromSession(s -> s.createNativeQuery(
            "select id from Account where id = " + k0 + " for update", Long.class).getResultList()));
  }

  private static void assertRefusal(String kind, Class<? extends Throwable> expected,
      org.junit.jupiter.api.function.Executable refused) {
    java.util.Map<String, Double> before = refusals();
    Throwable thrown = assertThrows(Throwable.class, refused, kind);
    Throwable cause = thrown;
    while (cause != null && !expected.isInstance(cause)) {
      cause = cause.getCause();
    }
    assertNotNull(cause, kind + ": expected " + expected.getName() + " but got " + thrown);
    java.util.Map<String, Double> after = refusals();
    for (String k : after.keySet()) {
      assertEquals(k.equals(kind) ? 1 : 0, after.get(k) - before.getOrDefault(k, 0.0), "refusals of kind " + k
          + " after provoking " + kind);
    }
    assertTrue(after.containsKey(kind), kind);
  }

  private static java.util.Map<String, Double> refusals() {
    java.util.Map<String, Double> byKind = new java.util.HashMap<>();
    for (Counter c : registry.find("shardwise.guard.refusals").counters()) {
      byKind.put(c.getId().getTag("kind"), c.count());
    }
    return byKind;
  }

  // ---- helpers ----------------------------------------------------------------------------------

  /** A key on {@code shardId} never handed out before (the counter moves past every key tried). */
  private static long keyOn(String shardId) {
    long k;
    do {
      k = nextKey.incrementAndGet();
    } while (!shards.shardFor(k).equals(shardId));
    return k;
  }

  private static double sessions(String shard, String kind) {
    Counter c = registry.find("shardwise.sessions").tags("shard", shard, "kind", kind).counter();
    return c == null ? 0 : c.count();
  }

  private static double counter(String name, String shard) {
    Counter c = registry.find(name).tags("shard", shard).counter();
    return c == null ? 0 : c.count();
  }

  private static double crossShard(String shard, String outcome) {
    Counter c = registry.find("shardwise.crossshard.transactions").tags("shard", shard, "outcome", outcome).counter();
    return c == null ? 0 : c.count();
  }

  private static double prepared(String shard) {
    return registry.get("shardwise.transactions.prepared").tags("shard", shard, "role", "primary").gauge().value();
  }

  /** The gauge once it shows {@code expected}, or its last value when 10 s passed. */
  private static double pollPrepared(String shard, double expected) {
    long until = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
    double value = prepared(shard);
    while (value != expected && System.nanoTime() < until) {
      Thread.onSpinWait();
      value = prepared(shard);
    }
    return value;
  }

  private static double pins(String shard) {
    return registry.get("shardwise.ryw.pins").tags("shard", shard).gauge().value();
  }

  private static long scatterTimer(String shard) {
    Timer t = registry.find("shardwise.scatter.shard").tags("shard", shard, "outcome", "success").timer();
    return t == null ? 0 : t.count();
  }
}
