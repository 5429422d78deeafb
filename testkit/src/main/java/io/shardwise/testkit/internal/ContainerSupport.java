package io.shardwise.testkit.internal;

/**
 * The door to the Testcontainers backend. Testcontainers is an optional dependency of the testkit,
 * so nothing here touches its classes unless they are on the classpath.
 */
public final class ContainerSupport {
  private static volatile Boolean dockerAvailable;

  private ContainerSupport() {}

  public static boolean testcontainersPresent() {
    try {
      Class.forName("org.testcontainers.DockerClientFactory", false, ContainerSupport.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** True when Testcontainers is on the classpath and reaches a Docker engine. Asked once per JVM. */
  public static boolean dockerAvailable() {
    Boolean known = dockerAvailable;
    if (known == null) {
      known = testcontainersPresent() && ContainerCluster.dockerReachable();
      dockerAvailable = known;
    }
    return known;
  }

  /** Why the container backend cannot run here, or null when it can. */
  public static String unavailableReason() {
    if (!testcontainersPresent()) {
      return "org.testcontainers:testcontainers is not on the test classpath";
    }
    return dockerAvailable() ? null : "no Docker engine is reachable (Testcontainers found none)";
  }

  public static void requireDocker() {
    String reason = unavailableReason();
    if (reason != null) {
      throw new io.shardwise.testkit.PostgresStartException("The Testcontainers backend was chosen, but " + reason
          + ". Use the embedded backend (-Dshardwise.testkit.backend=embedded, the default) or start Docker.");
    }
  }

  public static Cluster start(TopologySpec spec) {
    return ContainerCluster.start(spec);
  }
}
