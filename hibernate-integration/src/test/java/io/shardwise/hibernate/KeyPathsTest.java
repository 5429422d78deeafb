package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.keypathalternatives.Client;
import io.shardwise.hibernate.keypathalternatives.ClientScope;
import io.shardwise.hibernate.keypathalternatives.ProtocolMapper;
import io.shardwise.hibernate.keypathalternatives.Realm;
import io.shardwise.hibernate.keypathmerge.LinkedOwner;
import io.shardwise.hibernate.keypathmerge.LinkedPet;
import io.shardwise.hibernate.keypathmerge.LinkedVisit;
import io.shardwise.hibernate.keypathmerge.ListedOwner;
import io.shardwise.hibernate.keypathmerge.ListedPet;
import io.shardwise.hibernate.keypathmerge.ListedVisit;
import io.shardwise.hibernate.keypaths.Household;
import io.shardwise.hibernate.keypaths.Owner;
import io.shardwise.hibernate.keypaths.Pet;
import io.shardwise.hibernate.keypaths.Resident;
import io.shardwise.hibernate.keypaths.Visit;
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
 * Keys that follow associations: pets and visits declare {@code @CoLocated(via = ...)}, protocol
 * mappers a path to each of their two possible parents, and the application never sets their key.
 * Where each row landed is read from each primary directly.
 */
@ShardedPostgres(shards = 2)
class KeyPathsTest {
  private static PostgresTopology pg;
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  /** Two owner keys that route to s0, one that routes to s1. */
  private static long onS0;
  private static long alsoOnS0;
  private static long onS1;

  @BeforeAll
  static void start(PostgresTopology topology) {
    pg = topology;
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null)
        .property("shardwise.snowflake.worker_id", "11").entities(Owner.class, Pet.class, Visit.class,
            Household.class, Resident.class, ListedOwner.class, ListedPet.class, ListedVisit.class, LinkedOwner.class,
            LinkedPet.class, LinkedVisit.class, Realm.class, Client.class, ClientScope.class, ProtocolMapper.class);
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
        s.execute("DELETE FROM kp_visit; DELETE FROM kp_pet; DELETE FROM kp_owner; DELETE FROM kp_resident;"
            + " DELETE FROM kp_household; DELETE FROM km_visit; DELETE FROM km_pet; DELETE FROM km_owner;"
            + " DELETE FROM km_linked_visit; DELETE FROM km_linked_pet; DELETE FROM km_linked_owner;"
            + " DELETE FROM ka_protocol_mapper; DELETE FROM ka_client; DELETE FROM ka_client_scope; DELETE FROM ka_realm");
      }
    }
  }

  @Test
  void petsAndVisitsLandOnTheirOwnersShardWithoutTheApplicationSettingAKey() throws SQLException {
    for (long ownerId : List.of(onS0, onS1)) {
      Pet stored = shards.forKey(ownerId).fromTransaction(session -> {
        Owner owner = new Owner(ownerId, "owner " + ownerId);
        session.persist(owner);
        Pet pet = new Pet(owner, "rex");
        pet.addVisit("check-up");
        pet.addVisit("vaccine");
        session.persist(pet); // cascades to both visits
        session.persist(new Visit(pet, "claws"));
        return pet;
      });
      assertEquals(ownerId, stored.getOwnerId(), "the key was filled on the entity, too");
    }
    assertEquals(List.of(onS0), column("s0", "SELECT owner_id FROM kp_pet"));
    assertEquals(List.of(onS1), column("s1", "SELECT owner_id FROM kp_pet"));
    assertEquals(List.of(onS0, onS0, onS0), column("s0", "SELECT owner_id FROM kp_visit ORDER BY owner_id"));
    assertEquals(List.of(onS1, onS1, onS1), column("s1", "SELECT owner_id FROM kp_visit ORDER BY owner_id"));
  }

  /**
   * Native SQL that joins a visit to its pet on the foreign key of its {@code via} path pins the
   * visit with the pet's key: admitted, checked against the session's shard by the pet's value,
   * and run where the rows are. An outer join that keeps every visit pins nothing.
   */
  @Test
  void nativeSqlJoiningAVisitToItsPinnedPetOnTheViaForeignKeyRunsOnThePetsShard() throws SQLException {
    for (long ownerId : List.of(onS0, onS1)) {
      Long petId = storeOwnerAndPet(ownerId);
      shards.forKey(ownerId).inTransaction(session -> session.persist(new Visit(session.getReference(Pet.class, petId),
          "visit of " + ownerId)));
    }
    String joined = "select v.reason from kp_visit v join kp_pet p on v.pet_id = p.id where p.owner_id = :owner";
    assertEquals(List.of("visit of " + onS1), shards.forKey(onS1).fromSession(session -> session
        .createNativeQuery(joined, String.class).setParameter("owner", onS1).getResultList()));
    ShardKeyException otherShard = assertThrows(ShardKeyException.class, () -> shards.forKey(onS0).fromSession(
        session -> session.createNativeQuery(joined, String.class).setParameter("owner", onS1).getResultList()));
    assertTrue(otherShard.getMessage().startsWith("[ShardKeyOnOtherShard] This query pins Pet.ownerId = " + onS1),
        otherShard.getMessage());
    assertThrows(ShardKeyMissingException.class, () -> shards.forKey(onS0).fromSession(session -> session
        .createNativeQuery("select v.reason from kp_visit v left join kp_pet p on p.id = v.pet_id"
            + " and p.owner_id = :owner", String.class).setParameter("owner", onS0).getResultList()));

    String delete = "delete from kp_visit where pet_id in (select id from kp_pet where owner_id = :owner)";
    assertThrows(ShardKeyException.class, () -> shards.forKey(onS0).inTransaction(session -> session
        .createNativeMutationQuery(delete).setParameter("owner", onS1).executeUpdate()));
    assertEquals(List.of(onS1), column("s1", "SELECT owner_id FROM kp_visit"), "nothing deleted yet");
    assertEquals(1, (int) shards.forKey(onS1).fromTransaction(session -> session.createNativeMutationQuery(delete)
        .setParameter("owner", onS1).executeUpdate()));
    assertEquals(List.of(), column("s1", "SELECT owner_id FROM kp_visit"));
    assertEquals(List.of(onS0), column("s0", "SELECT owner_id FROM kp_visit"));
  }

  @Test
  void aVisitOfAPetLoadedLaterTakesTheKeyThroughLazyAssociations() throws SQLException {
    Long petId = storeOwnerAndPet(onS1);
    shards.forKey(onS1).inTransaction(session -> session.persist(new Visit(session.getReference(Pet.class, petId),
        "follow-up")));
    assertEquals(List.of(onS1), column("s1", "SELECT owner_id FROM kp_visit WHERE pet_id = " + petId));
    assertEquals(List.of(), column("s0", "SELECT owner_id FROM kp_visit"));
  }

  @Test
  void mergeFillsANewVisitsKeyAndLeavesADetachedVisitWithAnUnloadedPetAlone() throws SQLException {
    Long petId = storeOwnerAndPet(onS0);
    Visit merged = shards.forKey(onS0).fromTransaction(session ->
        session.merge(new Visit(session.getReference(Pet.class, petId), "merged")));
    assertEquals(onS0, merged.getOwnerId());

    Visit detached = shards.forKey(onS0).fromTransaction(session -> session.find(Visit.class, merged.getId()));
    detached.setReason("changed while detached");
    shards.forKey(onS0).inTransaction(session -> session.merge(detached));
    assertEquals(List.of(onS0), column("s0", "SELECT owner_id FROM kp_visit WHERE reason = 'changed while detached'"));
  }

  @Test
  void aKeyThatDisagreesWithTheParentsIsRefusedBeforeAnySql() throws SQLException {
    Long petId = storeOwnerAndPet(onS0);
    storeOwnerAndPet(alsoOnS0);
    ShardKeyPathException e = assertThrows(ShardKeyPathException.class,
        () -> shards.forKey(onS0).inTransaction(session -> {
          Visit visit = new Visit(session.find(Pet.class, petId), "wrong key");
          visit.setOwnerId(alsoOnS0);
          session.persist(visit);
        }));
    assertTrue(e.getMessage().startsWith("[ShardKeyPathMismatch] Cannot persist Visit: Visit.ownerId is " + alsoOnS0
        + " but Visit.pet.owner has the shard key " + onS0), e.getMessage());
    assertEquals(List.of(), column("s0", "SELECT owner_id FROM kp_visit"));
  }

  @Test
  void aFilledKeyChangedBeforeFlushIsRefusedAndNothingIsWritten() throws SQLException {
    Long petId = storeOwnerAndPet(onS0);
    storeOwnerAndPet(alsoOnS0);
    ShardKeyException e = assertThrows(ShardKeyException.class,
        () -> shards.forKey(onS0).inTransaction(session -> {
          Visit visit = new Visit(session.find(Pet.class, petId), "changed before flush");
          session.persist(visit);
          visit.setOwnerId(alsoOnS0); // routes to the same shard, so only the key's history can tell it is wrong
          session.flush();
        }));
    // the INSERT carries the key filled at persist; the change after it is an UPDATE of the key
    assertTrue(e.getMessage().startsWith("[ShardKeyChanged] Visit.ownerId changed from " + onS0 + " to " + alsoOnS0),
        e.getMessage());
    assertEquals(List.of(), column("s0", "SELECT owner_id FROM kp_visit"));
  }

  @Test
  void movingAVisitToAPetOfAnotherOwnerIsRefusedAtFlush() throws SQLException {
    Long petId = storeOwnerAndPet(onS0);
    Long otherPetId = storeOwnerAndPet(alsoOnS0);
    Long visitId = shards.forKey(onS0).fromTransaction(session -> {
      Visit visit = new Visit(session.find(Pet.class, petId), "first");
      session.persist(visit);
      return visit.getId();
    });
    ShardKeyPathException e = assertThrows(ShardKeyPathException.class,
        () -> shards.forKey(onS0).inTransaction(session -> {
          session.find(Visit.class, visitId).setPet(session.find(Pet.class, otherPetId));
          session.flush();
        }));
    assertTrue(e.getMessage().startsWith("[ShardKeyPathMismatch] Cannot update Visit: Visit.ownerId is " + onS0
        + " but Visit.pet.owner has the shard key " + alsoOnS0), e.getMessage());
    assertEquals(List.of(petId), column("s0", "SELECT pet_id FROM kp_visit WHERE id = " + visitId));
  }

  @Test
  void aNullParentIsRefusedNamingTheHop() throws SQLException {
    ShardKeyPathException noPet = assertThrows(ShardKeyPathException.class,
        () -> shards.forKey(onS0).inTransaction(session -> session.persist(new Visit(null, "stray"))));
    assertTrue(noPet.getMessage().startsWith("[ShardKeyPathNull] Cannot store Visit: its shard key Visit.ownerId is"
        + " null and is taken from @CoLocated(via = \"pet.owner\"), but Visit.pet is null."), noPet.getMessage());

    ShardKeyPathException noOwner = assertThrows(ShardKeyPathException.class,
        () -> shards.forKey(onS0).inTransaction(session -> session.persist(new Visit(new Pet(null, "p"), "stray"))));
    assertTrue(noOwner.getMessage().contains("but Visit.pet.owner is null"), noOwner.getMessage());
    assertEquals(List.of(), column("s0", "SELECT owner_id FROM kp_visit"));
    assertEquals(List.of(), column("s0", "SELECT owner_id FROM kp_pet"));
  }

  @Test
  void aFilledKeyOfAnotherShardMeetsTheWrongShardRefusal() throws SQLException {
    ShardKeyException e = assertThrows(ShardKeyException.class,
        () -> shards.forShard("s0").inTransaction(session -> session.persist(new Pet(new Owner(onS1, "far"), "p"))));
    assertTrue(e.getMessage().startsWith("[ShardKeyMismatch] Cannot persist Pet with ownerId = " + onS1
        + " in a session on shard 's0'"), e.getMessage());
    assertEquals(List.of(), column("s0", "SELECT owner_id FROM kp_pet"));
    assertEquals(List.of(), column("s1", "SELECT owner_id FROM kp_pet"));
  }

  @Test
  void residentsTakeTheKeyOfTheHouseholdWhoseUnidirectionalListHoldsThem() throws SQLException {
    shards.forKey(onS1).inTransaction(session -> {
      Household household = new Household(onS1);
      household.add(new Resident("ann"));
      household.add(new Resident("bob"));
      session.persist(household); // cascades to both residents
    });
    shards.forKey(onS1).inTransaction(session ->
        session.find(Household.class, onS1).add(new Resident("cid"))); // persisted by cascade at flush
    assertEquals(List.of(onS1, onS1, onS1), column("s1", "SELECT household_id FROM kp_resident"));
    assertEquals(List.of(), column("s0", "SELECT household_id FROM kp_resident"));
    int listed = shards.forKey(onS1).fromTransaction(session -> session.find(Household.class, onS1).residents().size());
    assertEquals(3, listed, "the list reads its rows through the key column");

    ShardKeyPathException alone = assertThrows(ShardKeyPathException.class,
        () -> shards.forKey(onS1).inTransaction(session -> session.persist(new Resident("dee"))));
    assertTrue(alone.getMessage().startsWith("[ShardKeyPathNull] Cannot store Resident: its shard key"
        + " Resident.householdId is null and is taken from the Household.residents that holds it"), alone.getMessage());
    assertEquals(3, column("s1", "SELECT household_id FROM kp_resident").size());
  }


  // --- merge of a detached root, the way a web form saves it (Spring Data's save is this merge) ---

  @Test
  void aDetachedOwnerMergedWithANewListedPetAndVisitFillsBothKeys() throws SQLException {
    ListedOwner detached = storedListedOwner(onS1, "ann");
    ListedPet rex = new ListedPet("rex");
    rex.getVisits().add(new ListedVisit("first"));
    detached.getPets().add(rex);
    ListedOwner merged = shards.forKey(onS1).fromTransaction(session -> session.merge(detached));

    assertEquals(onS1, rex.getOwnerId(), "the key was filled on the form's pet, as persist fills it");
    assertEquals(onS1, merged.getPets().get(0).getOwnerId());
    assertEquals(List.of(onS1), column("s1", "SELECT owner_id FROM km_pet"));
    assertEquals(List.of(onS1), column("s1", "SELECT owner_id FROM km_visit"));
    assertEquals(List.of(), column("s0", "SELECT owner_id FROM km_pet UNION ALL SELECT owner_id FROM km_visit"));
  }

  @Test
  void aDetachedOwnerMergedWithNewChangedAndRemovedPetsKeepsEveryRowOnItsShard() throws SQLException {
    ListedOwner detached = storedListedOwner(onS0, "bob", "kept", "removed");
    ListedPet kept = detached.getPets().get(0);
    kept.setName("renamed");
    kept.getVisits().add(new ListedVisit("new visit of a stored pet"));
    detached.getPets().remove(1);
    detached.getPets().add(new ListedPet("added"));
    detached.setName("bob, edited");
    shards.forKey(onS0).inTransaction(session -> session.merge(detached));

    assertEquals(List.of(onS0, onS0), column("s0", "SELECT owner_id FROM km_pet"));
    assertEquals(2L, column("s0", "SELECT count(*) FROM km_pet WHERE name IN ('renamed', 'added')").get(0));
    assertEquals(List.of(onS0), column("s0", "SELECT owner_id FROM km_visit WHERE pet_id = " + kept.getId()));
    assertEquals(List.of(), column("s1", "SELECT owner_id FROM km_pet UNION ALL SELECT owner_id FROM km_visit"));
  }

  @Test
  void aMergedPetWhoseKeyDisagreesWithItsListingOwnerIsRefusedBeforeAnySql() throws SQLException {
    ListedOwner detached = storedListedOwner(onS0, "cid");
    ListedPet stray = new ListedPet("stray");
    stray.setOwnerId(alsoOnS0);
    detached.getPets().add(stray);
    ShardKeyPathException e = assertThrows(ShardKeyPathException.class,
        () -> shards.forKey(onS0).inTransaction(session -> session.merge(detached)));
    assertTrue(e.getMessage().startsWith("[ShardKeyPathMismatch] Cannot merge ListedPet: ListedPet.ownerId is "
        + alsoOnS0 + " but the ListedOwner.pets that holds it has the shard key " + onS0), e.getMessage());
    assertEquals(List.of(), column("s0", "SELECT owner_id FROM km_pet"));
  }

  @Test
  void aNewOwnerMergedWithItsPetsAndAPetMergedAloneIntoALoadedOwner() throws SQLException {
    ListedOwner fresh = new ListedOwner(onS1, "dee");
    fresh.getPets().add(new ListedPet("first"));
    shards.forKey(onS1).inTransaction(session -> session.merge(fresh));
    assertEquals(List.of(onS1), column("s1", "SELECT owner_id FROM km_pet"));

    ShardKeyPathException alone = assertThrows(ShardKeyPathException.class,
        () -> shards.forKey(onS1).inTransaction(session -> session.merge(new ListedPet("nobody's"))));
    assertTrue(alone.getMessage().startsWith("[ShardKeyPathNull] Cannot store ListedPet"), alone.getMessage());
    assertEquals(1, column("s1", "SELECT owner_id FROM km_pet").size());
  }

  @Test
  void aDetachedOwnerWithBackReferencesMergesNewChangedAndRemovedChildren() throws SQLException {
    LinkedOwner detached = shards.forKey(onS1).fromTransaction(session -> {
      LinkedOwner owner = new LinkedOwner(onS1);
      owner.addPet("kept").addVisit("first");
      owner.addPet("removed");
      session.persist(owner);
      return owner;
    });
    LinkedPet kept = detached.getPets().get(0);
    kept.setName("renamed");
    kept.addVisit("second");
    detached.getPets().remove(1);
    detached.addPet("added").addVisit("of the new pet");
    shards.forKey(onS1).inTransaction(session -> session.merge(detached));

    assertEquals(List.of(onS1, onS1), column("s1", "SELECT owner_id FROM km_linked_pet"));
    assertEquals(List.of(onS1, onS1, onS1), column("s1", "SELECT owner_id FROM km_linked_visit"));
    assertEquals(List.of(), column("s0", "SELECT owner_id FROM km_linked_pet UNION ALL"
        + " SELECT owner_id FROM km_linked_visit"));

    LinkedOwner again = shards.forKey(onS1).fromTransaction(session -> session.find(LinkedOwner.class, onS1));
    again.getPets().get(0).setOwnerId(onS0);
    assertThrows(ShardKeyException.class, () -> shards.forKey(onS1).inTransaction(session -> session.merge(again)));
    assertEquals(List.of(onS1, onS1), column("s1", "SELECT owner_id FROM km_linked_pet"));
  }

  // --- a row with two possible parents: a protocol mapper of a client or of a client scope, ---
  // --- @CoLocated(with = Realm.class, via = {"client.realm", "clientScope.realm"}); owner keys serve as realms ---

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

  /** An owner stored with pets of these names, detached as a web form gets it back. */
  private static ListedOwner storedListedOwner(long ownerId, String name, String... pets) {
    return shards.forKey(ownerId).fromTransaction(session -> {
      ListedOwner owner = new ListedOwner(ownerId, name);
      for (String pet : pets) {
        owner.getPets().add(new ListedPet(pet));
      }
      session.persist(owner);
      return owner;
    });
  }

  private static Long storeOwnerAndPet(long ownerId) {
    return shards.forKey(ownerId).fromTransaction(session -> {
      Owner owner = new Owner(ownerId, "owner " + ownerId);
      session.persist(owner);
      Pet pet = new Pet(owner, "pet of " + ownerId);
      session.persist(pet);
      return pet.getId();
    });
  }

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
