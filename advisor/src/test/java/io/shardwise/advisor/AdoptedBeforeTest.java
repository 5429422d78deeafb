package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample app's unsharded model ({@code sample-app/adopted-before}), compiled as it stands: the
 * advisor proposes what {@code sample-app/src/main/java/io/shardwise/sample/adopted} was annotated
 * with by hand (docs/adopting.md).
 */
class AdoptedBeforeTest {
  @TempDir
  static Path classes;

  static Advice advice;

  @BeforeAll
  static void advise() throws Exception {
    Sources.compile(Path.of("../sample-app/adopted-before"), classes);
    advice = ShardKeyAdvisor.advise(List.of(classes), List.of("io.shardwise.sample.adopted"), null, null);
  }

  @Test
  void ownerIsTheRootPetAndVisitFollowItPetTypeIsAReferenceTable() {
    Proposal best = advice.best();
    assertEquals("Owner", best.root.name, advice.text());
    Placement pet = Sources.placement(best, "Pet");
    assertEquals(Placement.Kind.CO_LOCATED, pet.kind());
    assertEquals("owner", pet.via());
    assertEquals("ownerId", pet.keyAttribute());
    assertEquals("owner_id", pet.keyColumn());
    assertTrue(pet.columnExists(), "pets.owner_id is the join column");
    assertTrue(pet.sql().isEmpty());

    Placement visit = Sources.placement(best, "Visit");
    assertEquals("pet.owner", visit.via());
    assertEquals("Owner", visit.with().name);
    assertEquals("owner_id", visit.keyColumn());
    assertEquals(List.of(
        "ALTER TABLE visits ADD COLUMN owner_id bigint;",
        "UPDATE visits c SET owner_id = p.owner_id FROM pets p WHERE p.id = c.pet_id AND c.owner_id IS NULL;"
            + "  -- in batches on a large table",
        "ALTER TABLE visits ALTER COLUMN owner_id SET NOT NULL;",
        "CREATE INDEX CONCURRENTLY visits_owner_id ON visits (owner_id);"), visit.sql());

    Placement petType = Sources.placement(best, "PetType");
    assertEquals(Placement.Kind.REFERENCE, petType.kind());
    assertTrue(petType.reasons().get(0).startsWith("no to-one path to Owner; read by Pet.type"),
        petType.reasons().toString());
    assertTrue(best.crossings.isEmpty(), best.crossings.toString());
    assertEquals(1.0, best.coverage);
    assertTrue(Sources.placement(best, "Owner").reasons().stream().anyMatch(r -> r.contains("its id is Integer")));
  }

  @Test
  void theSearchByLastNameIsScatterGatherAsTheHandAnnotatedModelMarksIt() {
    Proposal best = advice.best();
    assertEquals(1, best.verdicts.size());
    QueryVerdict byLastName = best.verdicts.get(0);
    assertEquals("Owner.byLastName", byLastName.query().name());
    assertEquals(QueryVerdict.Kind.SCATTER_GATHER, byLastName.kind(), byLastName.reason());
    assertEquals(0.0, best.singleShardShare);
    assertTrue(advice.patch().contains("@ScatterGather(queries = {\"Owner.byLastName\"})"), advice.patch());
  }

  @Test
  void theRunnerUpIsPetWhichLeavesOwnerWithoutAPlace() {
    Proposal pet = advice.ranked.stream().filter(p -> p.root.name.equals("Pet")).findFirst().orElseThrow();
    assertTrue(pet.score() < advice.best().score());
    assertEquals(Placement.Kind.UNSHARDABLE, Sources.placement(pet, "Owner").kind());
    assertEquals(0.75, pet.coverage);
    assertNull(advice.best().balance, "no database, no balance");
  }

  @Test
  void thePatchCarriesTheAnnotationsOfTheHandAnnotatedModel() {
    String patch = advice.patch();
    assertTrue(patch.contains("@Id @ShardKey private Long id;"), patch);
    assertTrue(patch.contains("@CoLocated(with = Owner.class, via = \"owner\")"), patch);
    assertTrue(patch.contains("@CoLocated(with = Owner.class, via = \"pet.owner\")"), patch);
    assertTrue(patch.contains("@ShardKey @Column(name = \"owner_id\") private Long ownerId;"), patch);
    assertTrue(patch.contains("@JoinColumn(name = \"owner_id\", insertable = false, updatable = false) owner;"),
        patch);
    assertTrue(patch.contains("@ReferenceTable"), patch);
  }
}
