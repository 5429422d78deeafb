package io.shardwise.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.advisor.Advice;
import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ReferenceTable;
import io.shardwise.annotations.ScatterGather;
import io.shardwise.sample.adopted.Owner;
import io.shardwise.sample.adopted.Pet;
import io.shardwise.sample.adopted.PetType;
import io.shardwise.sample.adopted.Visit;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The walkthrough's advise step proposes, for the unsharded model, the annotations the sharded
 * model of the sample carries: read from the compiled sharded classes, not restated here.
 */
class AdviseStepTest {
  @Test
  void theAdviceOnTheUnshardedModelIsWhatTheShardedModelWasAnnotatedWith() {
    Advice advice = AdviseStep.advise(AdviseStep.sources());
    assertEquals("Owner", advice.bestRoot(), advice.text());
    String patch = advice.patch();
    for (Class<?> child : List.of(Pet.class, Visit.class)) {
      CoLocated coLocated = child.getAnnotation(CoLocated.class);
      assertEquals(1, coLocated.via().length, child.getSimpleName() + " has one parent");
      assertTrue(patch.contains("@CoLocated(with = " + coLocated.with().getSimpleName() + ".class, via = \""
          + coLocated.via()[0] + "\")"), child.getSimpleName() + ":\n" + patch);
    }
    assertTrue(PetType.class.isAnnotationPresent(ReferenceTable.class) && patch.contains("@ReferenceTable"), patch);
    String scatter = Owner.class.getAnnotation(ScatterGather.class).queries()[0];
    assertTrue(patch.contains("@ScatterGather(queries = {\"" + scatter + "\"})"), patch);
  }
}
