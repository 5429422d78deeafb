package io.shardwise.hibernate.metrics.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Which observations a session factory gets: none (null, so its hooks are skipped) unless a registry records. */
class ObservationsTest {
  private static final Supplier<ShardMap> NO_MAP = () -> {
    throw new AssertionError("choosing the observations must not read the shard map");
  };

  @Test
  void noRegistryAndTheNoOpRegistryTurnTracingOff() {
    assertNull(Observations.of(null, NO_MAP));
    assertNull(Observations.of(ObservationRegistry.NOOP, NO_MAP));
  }

  @Test
  void anyOtherRegistryGetsObservationsEvenBeforeItHasHandlers() {
    assertNotNull(Observations.of(TestObservationRegistry.create(), NO_MAP));
    assertNotNull(Observations.of(ObservationRegistry.create(), NO_MAP));
  }

  @Test
  void anythingElseIsRefused() {
    assertFalse(Observations.isObservationRegistry("registry"));
    assertTrue(Observations.isObservationRegistry(TestObservationRegistry.create()));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Observations.of("registry", NO_MAP));
    assertEquals("Not a io.micrometer.observation.ObservationRegistry: java.lang.String", e.getMessage());
  }
}
