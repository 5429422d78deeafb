package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.superkeys.Clinic;
import io.shardwise.hibernate.superkeys.Owner;
import io.shardwise.hibernate.superkeys.Pet;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * Shard keys declared in a {@code @MappedSuperclass} or on a getter overriding the superclass's id
 * getter (field and property access) route like keys declared on the entity: every row lands on its
 * key's shard, and the runtime knows when the key is the id (a find by another shard's id is refused).
 */
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class SuperclassKeysTest {

  @Test
  void keysFromASuperclassOrAnOverridingGetterRouteEveryRowToItsKeysShard(PostgresTopology pg) throws SQLException {
    try (SessionFactory sf = DefaultIdsTest.builder(pg, Owner.class, Pet.class, Clinic.class).buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      Map<String, List<Long>> expected = new TreeMap<>();
      for (long id = 1; id <= 12; id++) {
        long key = id;
        shards.forKey(key).inTransaction(session -> {
          session.persist(new Owner(key));
          session.persist(new Pet(1000 + key, key));
          session.persist(new Clinic(key));
        });
        expected.computeIfAbsent(shards.shardFor(key), s -> new ArrayList<>()).add(key);
      }
      assertEquals(3, expected.size(), "the keys spread over every shard: " + expected);
      for (PostgresShard shard : pg.shards()) {
        List<Long> keys = expected.getOrDefault("s" + shard.index(), List.of());
        assertEquals(keys, ids(shard, "SELECT id FROM superkey_owner ORDER BY id"), "owners on s" + shard.index());
        assertEquals(keys, ids(shard, "SELECT owner_id FROM superkey_pet ORDER BY owner_id"), "pets on s" + shard.index());
        assertEquals(keys, ids(shard, "SELECT id FROM superkey_clinic ORDER BY id"), "clinics on s" + shard.index());
      }

      long here = expected.get(shards.shardFor(1L)).get(0);
      long elsewhere = expected.entrySet().stream().filter(e -> !e.getKey().equals(shards.shardFor(here)))
          .findFirst().orElseThrow().getValue().get(0);
      ShardRoute route = shards.forKey(here);
      assertEquals(Long.valueOf(here), route.fromSession(s -> s.find(Owner.class, here).getId()));
      ShardKeyException owner = assertThrows(ShardKeyException.class,
          () -> route.fromSession(s -> s.find(Owner.class, elsewhere)));
      assertTrue(owner.getMessage().contains("[ShardKeyOnOtherShard] Cannot load Owner with id = " + elsewhere),
          owner.getMessage());
      ShardKeyException clinic = assertThrows(ShardKeyException.class,
          () -> route.fromSession(s -> s.find(Clinic.class, elsewhere)));
      assertTrue(clinic.getMessage().contains("Cannot load Clinic with id = " + elsewhere), clinic.getMessage());
      ShardKeyException persist = assertThrows(ShardKeyException.class,
          () -> route.inTransaction(s -> s.persist(new Clinic(elsewhere))));
      assertTrue(persist.getMessage().contains("[ShardKeyMismatch] Cannot persist Clinic with id = " + elsewhere),
          persist.getMessage());
    }
  }

  private static List<Long> ids(PostgresShard shard, String sql) throws SQLException {
    List<Long> ids = new ArrayList<>();
    try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
    }
    return ids;
  }
}
