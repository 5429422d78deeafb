package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.keypathalternatives.Client;
import io.shardwise.hibernate.keypathalternatives.ClientScope;
import io.shardwise.hibernate.keypathalternatives.ProtocolMapper;
import io.shardwise.hibernate.keypathalternatives.Realm;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A key with two possible parents: a protocol mapper belongs to a client or to a client scope,
 * {@code @CoLocated(with = Realm.class, via = {"client.realm", "clientScope.realm"})}, and the
 * application never sets its key. Where each row landed is read from each primary directly.
 */
@ShardedPostgres(shards = 2)
class KeyPathAlternativesTest {
  private static PostgresTopology pg;
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  /** Two realms that route to s0, one that routes to s1. */
  private static long onS0;
  private static long alsoOnS0;
  private static long onS1;

  @BeforeAll
  static void start(PostgresTopology topology) {
    pg = topology;
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null)
        .property("shardwise.snowflake.worker_id", "12")
        .entities(Realm.class, Client.class, ClientScope.class, ProtocolMapper.class);
    for (PostgresShard shard : pg.shards()) {
      b.shard("s" + shard.index(), shard.primary().jdbcUrl());
    }
    sessionFactory = b.schema("create").buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    onS0 = keyOf("s0", 1);
    alsoOnS0 = keyOf("s0", onS0 + 1);
    onS1 = keyOf("s1", 1);
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  @BeforeEach
  void empty() throws SQLException {
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
        s.execute("DELETE FROM ka_protocol_mapper; DELETE FROM ka_client; DELETE FROM ka_client_scope;"
            + " DELETE FROM ka_realm");
      }
    }
  }

  @Test
  void mappersOfAClientOfAScopeAndOfBothLandOnTheirRealmsShard() throws SQLException {
    for (long realmId : List.of(onS0, onS1)) {
      int port = shards.forKey(realmId).fromTransaction(session -> {
        Parents parents = storeParents(session, realmId);
        session.persist(new ProtocolMapper(parents.client(), null, "of the client"));
        session.persist(new ProtocolMapper(null, parents.scope(), "of the scope"));
        ProtocolMapper both = new ProtocolMapper(parents.client(), parents.scope(), "of both");
        session.persist(both);
        assertEquals(realmId, both.realmId, "the key was filled on the entity at persist");
        return session.createNativeQuery("select inet_server_port()", Integer.class).getSingleResult();
      });
      assertEquals(primaryPort(shards.shardFor(realmId)), port, "the session wrote on the realm's shard's primary");
    }
    assertEquals(List.of(onS0, onS0, onS0), column("s0", "SELECT realm_id FROM ka_protocol_mapper"));
    assertEquals(List.of(onS1, onS1, onS1), column("s1", "SELECT realm_id FROM ka_protocol_mapper"));
  }

  @Test
  void aMapperWhoseParentsBelongToTwoRealmsIsRefusedAtPersist() throws SQLException {
    // both realms route to s0: only the paths can tell that the mapper would belong to two of them
    ShardKeyPathException e = shards.forKey(onS0).fromTransaction(session -> {
      Client client = storeParents(session, onS0).client();
      ClientScope otherRealmsScope = storeParents(session, alsoOnS0).scope();
      return assertThrows(ShardKeyPathException.class,
          () -> session.persist(new ProtocolMapper(client, otherRealmsScope, "torn")));
    });
    assertTrue(e.getMessage().startsWith("[ShardKeyPathConflict] Cannot persist ProtocolMapper: ProtocolMapper"
        + ".client.realm has the shard key " + onS0 + " but ProtocolMapper.clientScope.realm has the shard key "
        + alsoOnS0 + " (@CoLocated(via = {\"client.realm\", \"clientScope.realm\"}))"), e.getMessage());
    assertTrue(e.getMessage().contains("Set only the association of the parent ProtocolMapper belongs to"),
        e.getMessage());
    assertEquals(List.of(), column("s0", "SELECT realm_id FROM ka_protocol_mapper"));
  }

  @Test
  void aMapperOfNeitherParentIsRefusedNamingBothPaths() throws SQLException {
    ShardKeyPathException e = assertThrows(ShardKeyPathException.class, () -> shards.forKey(onS0)
        .inTransaction(session -> session.persist(new ProtocolMapper(null, null, "orphan"))));
    assertTrue(e.getMessage().startsWith("[ShardKeyPathNull] Cannot store ProtocolMapper: its shard key"
        + " ProtocolMapper.realmId is null and is taken from the first path of @CoLocated(via = {\"client.realm\","
        + " \"clientScope.realm\"}) that is set, but ProtocolMapper.client and ProtocolMapper.clientScope are null."),
        e.getMessage());
    assertEquals(List.of(), column("s0", "SELECT realm_id FROM ka_protocol_mapper"));
    assertEquals(List.of(), column("s1", "SELECT realm_id FROM ka_protocol_mapper"));
  }

  @Test
  void aKeySetByTheApplicationMustAgreeWithTheParent() throws SQLException {
    ShardKeyPathException e = assertThrows(ShardKeyPathException.class, () -> shards.forKey(onS0)
        .inTransaction(session -> {
          ProtocolMapper mapper = new ProtocolMapper(null, storeParents(session, onS0).scope(), "wrong key");
          mapper.realmId = alsoOnS0;
          session.persist(mapper);
        }));
    assertTrue(e.getMessage().startsWith("[ShardKeyPathMismatch] Cannot persist ProtocolMapper: ProtocolMapper.realmId"
        + " is " + alsoOnS0 + " but ProtocolMapper.clientScope.realm has the shard key " + onS0), e.getMessage());
    assertEquals(List.of(), column("s0", "SELECT realm_id FROM ka_protocol_mapper"));
  }

  @Test
  void aDetachedMapperMovedFromItsClientToAScopeOfARealmOnAnotherShardIsRefusedAtMerge() throws SQLException {
    ClientScope farScope = shards.forKey(onS1).fromTransaction(session -> storeParents(session, onS1).scope());
    ProtocolMapper detached = storedMapperOfAClient(onS0);
    detached.client = null;
    detached.clientScope = farScope; // as a form saves it: the mapper and the scope it now names, both detached
    ShardKeyPathException e = assertThrows(ShardKeyPathException.class,
        () -> shards.forKey(onS0).inTransaction(session -> session.merge(detached)));
    assertTrue(e.getMessage().startsWith("[ShardKeyPathMismatch] Cannot merge ProtocolMapper: ProtocolMapper.realmId"
        + " is " + onS0 + " but ProtocolMapper.clientScope.realm has the shard key " + onS1), e.getMessage());
    assertEquals(List.of(onS0), column("s0", "SELECT realm_id FROM ka_protocol_mapper WHERE client_id IS NOT NULL"
        + " AND client_scope_id IS NULL"));
    assertEquals(List.of(), column("s1", "SELECT realm_id FROM ka_protocol_mapper"));
  }

  @Test
  void aLoadedMapperMovedFromItsClientToAScopeOfAnotherRealmIsRefusedAtFlush() throws SQLException {
    long mapperId = storedMapperOfAClient(onS0).id;
    ShardKeyPathException e = assertThrows(ShardKeyPathException.class,
        () -> shards.forKey(onS0).inTransaction(session -> {
          ClientScope otherRealmsScope = storeParents(session, alsoOnS0).scope(); // same shard, another realm
          ProtocolMapper mapper = session.find(ProtocolMapper.class, mapperId);
          mapper.client = null;
          mapper.clientScope = otherRealmsScope;
          session.flush();
        }));
    assertTrue(e.getMessage().startsWith("[ShardKeyPathMismatch] Cannot update ProtocolMapper: ProtocolMapper.realmId"
        + " is " + onS0 + " but ProtocolMapper.clientScope.realm has the shard key " + alsoOnS0), e.getMessage());
    assertEquals(List.of(onS0), column("s0", "SELECT realm_id FROM ka_protocol_mapper WHERE client_id IS NOT NULL"
        + " AND client_scope_id IS NULL AND id = " + mapperId));
  }

  // ---------------------------------------------------------------------------------------------

  private record Parents(Client client, ClientScope scope) {}

  /** A realm with one client and one client scope, persisted in this session. */
  private static Parents storeParents(Session session, long realmId) {
    Realm realm = new Realm(realmId);
    session.persist(realm);
    Client client = new Client(realm);
    ClientScope scope = new ClientScope(realm);
    session.persist(client);
    session.persist(scope);
    return new Parents(client, scope);
  }

  /** A mapper of a new client of the realm, stored and detached. */
  private static ProtocolMapper storedMapperOfAClient(long realmId) {
    return shards.forKey(realmId).fromTransaction(session -> {
      ProtocolMapper mapper = new ProtocolMapper(storeParents(session, realmId).client(), null, "of the client");
      session.persist(mapper);
      return mapper;
    });
  }

  private static int primaryPort(String shardId) {
    return pg.shards().get(Integer.parseInt(shardId.substring(1))).primary().port();
  }

  /**
   * The first column of a query on one shard's primary, each row checked to come from that server
   * (its port, and not in recovery).
   */
  private static List<Long> column(String shardId, String sql) throws SQLException {
    PostgresShard shard = pg.shards().get(Integer.parseInt(shardId.substring(1)));
    List<Long> values = new ArrayList<>();
    try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT inet_server_port(), pg_is_in_recovery(), q.* FROM (" + sql + ") q")) {
      while (rs.next()) {
        assertEquals(shard.primary().port(), rs.getInt(1), "answered by " + shardId + "'s primary");
        assertTrue(!rs.getBoolean(2), "a primary answered");
        values.add(rs.getLong(3));
      }
    }
    return values;
  }

  private static long keyOf(String shard, long from) {
    long key = from;
    while (!shards.shardFor(key).equals(shard)) {
      key++;
    }
    return key;
  }
}
