package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A root that lists its children in a unidirectional {@code @OneToMany @JoinColumn}: {@code listedIn}, then {@code via} the listed child. */
class ListedChildTest {
  @Test
  void aListedChildIsColocatedByTheListAndItsChildrenByTheirPathToIt() {
    Advice advice = ShardKeyAdvisor.advise(List.of(SaasModelTest.TEST_CLASSES),
        List.of("io.shardwise.advisor.household"), null, null);
    Proposal best = advice.best();
    assertEquals("Household", best.root.name, advice.text());
    Placement resident = Sources.placement(best, "Resident");
    assertEquals("residents", resident.listedIn());
    assertEquals("household_id", resident.keyColumn());
    assertTrue(resident.columnExists() && resident.sql().isEmpty());
    Placement chore = Sources.placement(best, "Chore");
    assertEquals("Resident", chore.with().name);
    assertEquals("resident", chore.via());
    assertEquals("UPDATE chores c SET household_id = p.household_id FROM residents p WHERE p.id = c.resident_id"
        + " AND c.household_id IS NULL;  -- in batches on a large table", chore.sql().get(1));
    String patch = advice.patch();
    assertTrue(patch.contains("@CoLocated(with = Household.class, listedIn = \"residents\")"), patch);
    assertTrue(patch.contains("@CoLocated(with = Resident.class, via = \"resident\")"), patch);
    assertTrue(patch.contains("  // and on Household.residents: @JoinColumn(name = \"household_id\", insertable = false,"
        + " updatable = false)"), patch);
  }
}
