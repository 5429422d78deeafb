package io.shardwise.hibernate.metrics.internal;

import io.shardwise.hibernate.metrics.ShardwiseObservations;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.function.Supplier;

/**
 * Chooses the observations of a session factory, once. Like {@link Metrics}, this class names no
 * Micrometer type in a signature; {@link MicrometerObservations} is loaded only when a registry was given.
 */
public final class Observations {
  /** The Micrometer type a configured observation registry must be (checked by name: the class may be absent). */
  public static final String OBSERVATION_REGISTRY_TYPE = "io.micrometer.observation.ObservationRegistry";

  private Observations() {}

  /**
   * Null (tracing off: the components skip their hooks) for no registry or Micrometer's no-op one,
   * else observations in {@code registry}, which reads each shard's database from {@code maps}.
   */
  public static ShardwiseObservations of(Object registry, Supplier<ShardMap> maps) {
    if (registry == null) {
      return null;
    }
    if (!isObservationRegistry(registry)) {
      throw new IllegalArgumentException("Not a " + OBSERVATION_REGISTRY_TYPE + ": " + registry.getClass().getName());
    }
    return MicrometerObservations.isNoop(registry) ? null : MicrometerObservations.bind(registry, maps);
  }

  /** Whether {@code value} is a Micrometer {@code ObservationRegistry}, found without loading Micrometer. */
  public static boolean isObservationRegistry(Object value) {
    return Metrics.implementsType(value.getClass(), OBSERVATION_REGISTRY_TYPE);
  }
}
