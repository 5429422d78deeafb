package io.shardwise.hibernate;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.shardwise.hibernate.bank.Account;
import io.shardwise.hibernate.scatter.ScatterResult;
import io.shardwise.hibernate.scatter.ShardFailurePolicy;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Observations (traces) on real PostgreSQL: three shards with a streaming replica each, the control
 * database on shard 0. Each test clears the test registry first and then checks the observations of
 * one operation: their names, their parents, and attributes checked against the server that
 * answered the work (inet_server_port(), pg_is_in_recovery(), current_database()).
 */
@ShardedPostgres(shards = 3, replicas = 1)
class TracesTest {
  private static final TestObservationRegistry registry = TestObservationRegistry.create();
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  private static PostgresTopology topology;
  private static final AtomicLong nextKey = new AtomicLong(1_000);
  /** The observations that were stopped (identity: contexts are compared by identity). */
  private static final Set<Observation.Context> stopped = ConcurrentHashMap.newKeySet();

  @BeforeAll
  static void start(PostgresTopology pg) {
    topology = pg;
    registry.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }

      @Override
      public void onStop(Observation.Context context) {
        stopped.add(context);
      }
    });
    sessionFactory = BankFixture.withHealthyReplicas(pg, BankFixture.builder(pg).observationRegistry(registry));
    shards = ShardedSessions.of(sessionFactory);
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  @BeforeEach
  void clear() {
    registry.clear();
  }

  @Test
  void aUnitOfWorkOnAShardIsOneObservationNamingTheServerThatServedIt() {
    long key = keyOn("shard1");
    Object[] server = shards.forKey(key).fromTransaction(s -> s.createNativeQuery(
        "select inet_server_port(), pg_is_in_recovery(), current_database()", Object[].class).getSingleResult());

    Observation.Context session = only(observations("shardwise.session"));
    String shard = low(session, "shardwise.shard");
    assertEquals("shard1", shard);
    int port = ((Number) server[0]).intValue();
    assertEquals(topology.shard(1).primary().port(), port, "the key's shard's primary served the work");
    assertEquals(false, server[1]);
    assertEquals("primary", low(session, "shardwise.role"));
    assertTrue(low(session, "shardwise.node").endsWith(":" + port), low(session, "shardwise.node"));
    assertEquals(Integer.toString(port), high(session, "server.port"));
    assertEquals("postgresql", low(session, "db.system.name"));
    assertEquals(server[2], low(session, "db.namespace"));
    assertEquals("key", low(session, "shardwise.session.kind"));
    assertEquals("false", low(session, "shardwise.read_only"));
    assertNull(session.getError());
    assertAllStopped("shardwise.session");
  }

  @Test
  void aReadOnlySessionNamesTheReplicaThatServedIt() {
    long key = keyOn("shard2");
    Object[] server = shards.forKey(key).readOnly().fromSession(s -> s.createNativeQuery(
        "select inet_server_port(), pg_is_in_recovery()", Object[].class).getSingleResult());

    Observation.Context session = only(observations("shardwise.session"));
    assertEquals("shard2", low(session, "shardwise.shard"));
    assertEquals(true, server[1], "a replica served the read");
    int port = ((Number) server[0]).intValue();
    assertEquals(topology.shard(2).replica(0).port(), port);
    assertEquals("replica", low(session, "shardwise.role"));
    assertTrue(low(session, "shardwise.node").endsWith(":" + port), low(session, "shardwise.node"));
    assertEquals("true", low(session, "shardwise.read_only"));
  }

  @Test
  void aScatterOverThreeShardsIsAParentWithOneChildPerShard() {
    shards.scatter().createQuery("select a.id from Account a", Long.class).getResultList();

    Observation.Context scatter = only(observations("shardwise.scatter"));
    assertEquals("3", low(scatter, "shardwise.fanout"));
    assertEquals("select a.id from Account a", high(scatter, "db.query.text"));
    List<Observation.Context> parts = observations("shardwise.scatter.shard");
    assertEquals(3, parts.size());
    Map<String, String> databaseOfShard = new TreeMap<>();
    for (Observation.Context part : parts) {
      assertSame(scatter, part.getParentObservation().getContextView(), "each shard's part is a child of the query");
      assertEquals("SELECT", low(part, "db.operation.name"));
      databaseOfShard.put(low(part, "shardwise.shard"), low(part, "db.namespace"));
    }
    assertEquals(Set.of("shard0", "shard1", "shard2"), databaseOfShard.keySet());
    for (int i = 0; i < 3; i++) {
      int index = i;
      String database = shards.forShard("shard" + i).fromSession(s -> s.createNativeQuery(
          "select current_database() || ':' || inet_server_port()", String.class).getSingleResult());
      assertEquals(database, databaseOfShard.get("shard" + index) + ":" + topology.shard(index).primary().port());
    }
    // each part's session runs inside it
    List<Observation.Context> sessions = observations("shardwise.session").stream()
        .filter(s -> "scatter".equals(low(s, "shardwise.session.kind"))).toList();
    assertEquals(3, sessions.size());
    for (Observation.Context session : sessions) {
      Observation.Context part = (Observation.Context) session.getParentObservation().getContextView();
      assertEquals("shardwise.scatter.shard", part.getName());
      assertEquals(low(part, "shardwise.shard"), low(session, "shardwise.shard"));
    }
    assertAllStopped("shardwise.scatter.shard");
  }

  @Test
  void aTwoPhaseCommitOverTwoShardsIsAParentWithOneChildPerParticipant() {
    long onShard0 = keyOn("shard0");
    long onShard2 = keyOn("shard2");
    shards.forKey(onShard0).inTransaction(s -> s.persist(new Account(onShard0, 100)));
    shards.forKey(onShard2).inTransaction(s -> s.persist(new Account(onShard2, 100)));
    registry.clear();
    Map<String, Integer> portOfShard = new ConcurrentHashMap<>();
    shards.atomically(tx -> {
      for (long id : new long[] {onShard0, onShard2}) {
        tx.on(id, s -> {
          s.find(Account.class, id).deposit(1);
          portOfShard.put(shards.shardFor(id), s.createNativeQuery("select inet_server_port()", Integer.class)
              .getSingleResult());
        });
      }
    });

    Observation.Context transaction = only(observations("shardwise.crossshard"));
    assertEquals("committed", low(transaction, "shardwise.outcome"));
    assertEquals("atomically", low(transaction, "shardwise.transaction"));
    assertNull(transaction.getError());
    List<Observation.Context> participants = observations("shardwise.crossshard.participant");
    assertEquals(2, participants.size());
    for (Observation.Context participant : participants) {
      assertSame(transaction, participant.getParentObservation().getContextView());
      assertEquals("committed", low(participant, "shardwise.outcome"));
      assertEquals("primary", low(participant, "shardwise.role"));
      String shard = low(participant, "shardwise.shard");
      assertTrue(low(participant, "shardwise.node").endsWith(":" + portOfShard.get(shard)),
          shard + " was served by port " + portOfShard.get(shard) + ", not " + low(participant, "shardwise.node"));
    }
    assertEquals(Set.of("shard0", "shard2"),
        participants.stream().map(p -> low(p, "shardwise.shard")).collect(Collectors.toSet()));
    assertAllStopped("shardwise.crossshard.participant");
  }

  /** A second session factory whose shard1 points at a port nothing listens on; shard0 is the topology's. */
  @Test
  void anUnavailableShardIsRecordedAsTheObservationsError() throws IOException {
    TestObservationRegistry ownRegistry = TestObservationRegistry.create();
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    try (SessionFactory sf = Shardwise.configure().credentials("postgres", null).entities(Account.class)
        .shard("shard0", topology.shard(0).primary().jdbcUrl())
        .shard("shard1", "jdbc:postgresql://127.0.0.1:" + closedPort + "/postgres")
        .property(ShardwiseSettings.CONNECTION_TIMEOUT, "1000")
        .observationRegistry(ownRegistry).buildSessionFactory()) {
      ShardedSessions unavailable = ShardedSessions.of(sf);

      ShardUnavailableException thrown = assertThrows(ShardUnavailableException.class, () -> unavailable
          .forShard("shard1").inSession(s -> s.createNativeQuery("select 1", Integer.class).getSingleResult()));
      Observation.Context session = only(observations(ownRegistry, "shardwise.session"));
      assertEquals("shard1", low(session, "shardwise.shard"));
      assertSame(thrown, session.getError());

      ownRegistry.clear();
      ScatterResult<Long> partial = unavailable.scatter().createQuery("select a.id from Account a", Long.class)
          .onShardFailure(ShardFailurePolicy.PARTIAL).getResult();
      assertEquals(Set.of("shard1"), partial.missingShards().keySet());
      Observation.Context scatter = only(observations(ownRegistry, "shardwise.scatter"));
      assertNull(scatter.getError(), "a partial answer is what the query asked for");
      Map<String, Throwable> errorOfShard = new TreeMap<>();
      List<String> shardsWithoutError = new ArrayList<>();
      for (Observation.Context part : observations(ownRegistry, "shardwise.scatter.shard")) {
        if (part.getError() == null) {
          shardsWithoutError.add(low(part, "shardwise.shard"));
        } else {
          errorOfShard.put(low(part, "shardwise.shard"), part.getError());
        }
      }
      assertEquals(List.of("shard0"), shardsWithoutError);
      assertEquals(Set.of("shard1"), errorOfShard.keySet());
      assertInstanceOf(ShardUnavailableException.class, errorOfShard.get("shard1"));
    }
  }

  private static void assertAllStopped(String name) {
    for (Observation.Context observation : observations(name)) {
      assertTrue(stopped.contains(observation), observation + " was not stopped");
    }
  }

  private static long keyOn(String shard) {
    return BankFixture.key(shards, shard, nextKey.getAndAdd(1_000));
  }

  private static List<Observation.Context> observations(String name) {
    return observations(registry, name);
  }

  private static List<Observation.Context> observations(TestObservationRegistry from, String name) {
    List<Observation.Context> all = new ArrayList<>();
    assertThat(from).hasHandledContextsThatSatisfy(all::addAll);
    return all.stream().filter(c -> name.equals(c.getName())).toList();
  }

  private static Observation.Context only(List<Observation.Context> observations) {
    assertEquals(1, observations.size(), observations::toString);
    return observations.get(0);
  }

  private static String low(Observation.Context context, String key) {
    KeyValue value = context.getLowCardinalityKeyValue(key);
    return value == null ? null : value.getValue();
  }

  private static String high(Observation.Context context, String key) {
    KeyValue value = context.getHighCardinalityKeyValue(key);
    return value == null ? null : value.getValue();
  }
}
