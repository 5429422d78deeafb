package io.shardwise.hibernate.metrics.internal;

import io.shardwise.hibernate.metrics.ShardwiseMetrics;

/**
 * Chooses the recorder of a session factory, once. This class names no Micrometer type in a
 * signature, so that the runtime loads and links it without Micrometer on the class path; only
 * {@link MicrometerMetrics} needs Micrometer, and it is loaded only when a registry was given.
 */
public final class Metrics {
  /** The Micrometer type a configured registry must be (checked by name: the class may be absent). */
  public static final String METER_REGISTRY_TYPE = "io.micrometer.core.instrument.MeterRegistry";

  private Metrics() {}

  /** The do-nothing recorder for {@code null}, else Micrometer meters in {@code registry}. */
  public static ShardwiseMetrics of(Object registry) {
    if (registry == null) {
      return ShardwiseMetrics.none();
    }
    if (!isMeterRegistry(registry)) {
      throw new IllegalArgumentException("Not a " + METER_REGISTRY_TYPE + ": " + registry.getClass().getName());
    }
    return MicrometerMetrics.bind(registry);
  }

  /** Whether {@code value} is a Micrometer {@code MeterRegistry}, found without loading Micrometer. */
  public static boolean isMeterRegistry(Object value) {
    return implementsType(value.getClass(), METER_REGISTRY_TYPE);
  }

  /** Whether {@code type} is, extends or implements the class or interface named {@code name}. */
  static boolean implementsType(Class<?> type, String name) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals(name)) {
        return true;
      }
      for (Class<?> i : c.getInterfaces()) {
        if (implementsType(i, name)) {
          return true;
        }
      }
    }
    return false;
  }
}
