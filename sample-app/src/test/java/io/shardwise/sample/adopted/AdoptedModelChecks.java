package io.shardwise.sample.adopted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The adopted model (an unsharded owners → pets → visits model with a pet-type list, sharded by
 * annotations and one setting) on real PostgreSQL. The application code below never sets a shard
 * key; where each row landed is read from each shard's primary directly. Subclasses pick the
 * number of shards.
 */
abstract class AdoptedModelChecks {
  private static PostgresTopology pg;
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology topology) throws SQLException {
    pg = topology;
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null)
        .property("shardwise.ids.default", "snowflake")
        .property("shardwise.snowflake.worker_id", "21")
        .entities(Owner.class, Pet.class, Visit.class, PetType.class)
        .controlDatabase(pg.shard(0).primary().jdbcUrl(), true); // logs the reference-table writes
    for (PostgresShard shard : pg.shards()) {
      b.shard("s" + shard.index(), shard.primary().jdbcUrl());
    }
    sessionFactory = b.schema("create").buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    for (PostgresShard shard : pg.shards()) {
      update(shard, "DELETE FROM visits; DELETE FROM pets; DELETE FROM owners; DELETE FROM types");
    }
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  @Test
  void ownersPetsAndVisitsLandOnTheOwnersShardWithoutTheApplicationSettingAKey() throws SQLException {
    shards.referenceTables().inTransaction(session -> {
      session.persist(new PetType(1, "cat"));
      session.persist(new PetType(2, "dog"));
    });
    int shardCount = pg.shards().size();
    int owners = 4 * shardCount;
    List<Long> ownerIds = new ArrayList<>();
    for (int i = 0; i < owners; i++) {
      String lastName = (i / shardCount) % 2 == 0 ? "Davis" : "Franklin"; // each round of new roots visits every shard
      int n = i;
      Owner owner = shards.forNewRoot(Owner.class).fromTransaction(session -> {
        Owner o = new Owner("owner" + n, lastName, "Madison");
        Pet pet = o.addPet("pet" + n, session.find(PetType.class, 1 + n % 2));
        pet.addVisit(LocalDate.of(2026, 1, 1 + n), "rabies shot");
        pet.addVisit(LocalDate.of(2026, 2, 1 + n), "check-up");
        o.addPet("second pet" + n, session.find(PetType.class, 1)).addVisit(LocalDate.of(2026, 3, 1), "neutered");
        session.persist(o); // cascades to the pets and their visits
        return o;
      });
      ownerIds.add(owner.getId());
    }

    Set<Long> ownersSeen = new HashSet<>();
    int pets = 0;
    int visits = 0;
    for (PostgresShard shard : pg.shards()) {
      String name = "s" + shard.index();
      List<Long> ownersHere = column(shard, "SELECT id FROM owners");
      assertTrue(ownersHere.size() >= 1, "new owners are spread over every shard; none on " + name);
      for (long id : ownersHere) {
        assertEquals(name, shards.shardFor(id), "owner " + id + " is stored on " + name);
        ownersSeen.add(id);
      }
      for (long key : column(shard, "SELECT owner_id FROM pets")) {
        assertEquals(name, shards.shardFor(key), "a pet of owner " + key + " is stored on " + name);
        pets++;
      }
      for (long key : column(shard, "SELECT owner_id FROM visits")) {
        assertEquals(name, shards.shardFor(key), "a visit of owner " + key + " is stored on " + name);
        visits++;
      }
      assertEquals(List.of(0L), column(shard, "SELECT count(*) FROM pets p LEFT JOIN owners o ON o.id = p.owner_id"
          + " WHERE o.id IS NULL"), "every pet on " + name + " has its owner on the same shard");
      assertEquals(List.of(0L), column(shard, "SELECT count(*) FROM visits v JOIN pets p ON p.id = v.pet_id"
          + " WHERE v.owner_id <> p.owner_id"), "every visit on " + name + " carries its pet's owner as key");
      assertEquals(List.of(0L), column(shard, "SELECT count(*) FROM visits v LEFT JOIN pets p ON p.id = v.pet_id"
          + " WHERE p.id IS NULL"), "every visit on " + name + " has its pet on the same shard");
    }
    assertEquals(new HashSet<>(ownerIds), ownersSeen, "every owner stored exactly where it routes");
    assertEquals(2 * owners, pets);
    assertEquals(3 * owners, visits);

    // The search by a non-key column gathers owners from every shard.
    List<Owner> davises = shards.scatter().createNamedQuery("Owner.byLastName", Owner.class)
        .setParameter("lastName", "Davis").getResultList();
    Set<Long> found = new HashSet<>();
    Set<String> shardsOfFound = new HashSet<>();
    for (Owner o : davises) {
      assertEquals("Davis", o.getLastName());
      found.add(o.getId());
      shardsOfFound.add(shards.shardFor(o.getId()));
    }
    Set<Long> expected = new HashSet<>();
    for (int i = 0; i < owners; i++) {
      if ((i / shardCount) % 2 == 0) {
        expected.add(ownerIds.get(i));
      }
    }
    assertEquals(expected, found, "the search by last name finds every Davis, on whichever shard");
    assertEquals(shardCount, shardsOfFound.size(), "the Davises found come from every shard: " + shardsOfFound);

    // The reference list is on every shard, and readable in any owner's session.
    for (PostgresShard shard : pg.shards()) {
      assertEquals(List.of(1L, 2L), column(shard, "SELECT id FROM types ORDER BY id"), "types on s" + shard.index());
    }
    for (long ownerId : ownerIds) {
      String typeName = shards.forKey(ownerId).fromSession(session ->
          session.find(Owner.class, ownerId).getPets().get(0).getType().getName());
      assertTrue(typeName.equals("cat") || typeName.equals("dog"), typeName);
    }
  }

  private static void update(PostgresShard shard, String sql) throws SQLException {
    try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static List<Long> column(PostgresShard shard, String sql) throws SQLException {
    List<Long> values = new ArrayList<>();
    try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getLong(1));
      }
    }
    return values;
  }
}
