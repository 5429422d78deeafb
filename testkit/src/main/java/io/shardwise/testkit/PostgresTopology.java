package io.shardwise.testkit;

import io.shardwise.testkit.internal.Cluster;
import io.shardwise.testkit.internal.ContainerSupport;
import io.shardwise.testkit.internal.EmbeddedCluster;
import io.shardwise.testkit.internal.TopologySpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Real PostgreSQL for tests: N shards, each a primary plus R streaming replicas, on loopback.
 *
 * <pre>{@code
 * try (PostgresTopology pg = PostgresTopology.builder().shards(2).replicasPerShard(1).start()) {
 *   PostgresNode replica = pg.shard(0).replica(0);
 *   replica.setApplyDelay(Duration.ofMillis(500));   // real, deterministic replication lag
 * }
 * }</pre>
 *
 * <p>The embedded backend (the default) runs PostgreSQL 17 from the binary bundle on the test
 * classpath; no Docker and no system install are needed. When the JVM runs as root, the servers
 * run as an unprivileged account: the configured one, else {@code postgres} where it exists, else
 * {@code nobody}. The Testcontainers backend is used when chosen
 * ({@link Backend#CONTAINERS}, or {@link Backend#AUTO} with a reachable Docker engine).
 *
 * <p>System properties override the builder's defaults: {@code shardwise.testkit.backend}
 * ({@code embedded|containers|auto}), {@code shardwise.testkit.postgres.home} (an installation to
 * use instead of the bundle), {@code shardwise.testkit.osUser}, {@code shardwise.testkit.workDir}.
 */
public final class PostgresTopology implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("io.shardwise.testkit");

  /** Where the servers run. */
  public enum Backend { EMBEDDED, CONTAINERS, AUTO }

  private final List<PostgresShard> shards;
  private final AutoCloseable resources;
  private final Duration startupTime;
  private final String description;

  private PostgresTopology(List<List<PostgresNode>> nodes, AutoCloseable resources, Duration startupTime,
      String description) {
    List<PostgresShard> list = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      List<PostgresNode> shard = nodes.get(i);
      list.add(new PostgresShard(i, shard.get(0), shard.subList(1, shard.size())));
    }
    this.shards = List.copyOf(list);
    this.resources = resources;
    this.startupTime = startupTime;
    this.description = description;
  }

  public static Builder builder() {
    return new Builder();
  }

  public List<PostgresShard> shards() {
    return shards;
  }

  public PostgresShard shard(int index) {
    if (index < 0 || index >= shards.size()) {
      throw new IndexOutOfBoundsException("The topology has " + shards.size() + " shard(s); there is no shard " + index);
    }
    return shards.get(index);
  }

  public int shardCount() {
    return shards.size();
  }

  /** Every primary and replica. */
  public List<PostgresNode> nodes() {
    List<PostgresNode> all = new ArrayList<>();
    shards.forEach(s -> all.addAll(s.nodes()));
    return all;
  }

  /** How long {@link Builder#start()} took, from the first process to the last server ready. */
  public Duration startupTime() {
    return startupTime;
  }

  /** Waits until every replica has replayed what its primary has written so far. */
  public void awaitReplicasCaughtUp(Duration timeout) {
    shards.forEach(s -> s.awaitReplicasCaughtUp(timeout));
  }

  /** Stops every server and deletes the data directories. */
  @Override
  public void close() {
    try {
      resources.close();
    } catch (Exception e) {
      throw new IllegalStateException("Could not stop " + description + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return shards.size() + " shard(s) on " + description;
  }

  /** Configures and starts a topology. */
  public static final class Builder {
    private int shards = 1;
    private int replicasPerShard = 0;
    private final Map<String, String> settings = new LinkedHashMap<>();
    private Path postgresHome = pathProperty("shardwise.testkit.postgres.home");
    private String osUser = System.getProperty("shardwise.testkit.osUser");
    private Path workDirectory = pathProperty("shardwise.testkit.workDir");
    private Backend backend = backendProperty();

    private Builder() {}

    public Builder shards(int shards) {
      if (shards < 1 || shards > 128) {
        throw new IllegalArgumentException("shards must be between 1 and 128, was " + shards);
      }
      this.shards = shards;
      return this;
    }

    public Builder replicasPerShard(int replicas) {
      if (replicas < 0 || replicas > 8) {
        throw new IllegalArgumentException("replicasPerShard must be between 0 and 8, was " + replicas);
      }
      this.replicasPerShard = replicas;
      return this;
    }

    /**
     * A postgresql.conf setting for every instance, written as PostgreSQL expects it (quote strings:
     * {@code setting("log_statement", "'all'")}).
     */
    public Builder setting(String name, String value) {
      if (name == null || !name.matches("[a-z_][a-z0-9_.]*")) {
        throw new IllegalArgumentException("Not a PostgreSQL setting name: '" + name + "'");
      }
      if (value == null || value.isBlank() || value.contains("\n")) {
        throw new IllegalArgumentException("Setting " + name + " needs a one-line value, was '" + value + "'");
      }
      settings.put(name, value);
      return this;
    }

    /** A PostgreSQL installation (root or bin directory) to use instead of the bundled binaries. */
    public Builder postgresHome(Path home) {
      this.postgresHome = home;
      return this;
    }

    /**
     * The unprivileged account that runs PostgreSQL when the JVM is root; it must exist. Unset, the
     * testkit uses {@code postgres} where it exists, else {@code nobody}.
     */
    public Builder osUser(String account) {
      this.osUser = account;
      return this;
    }

    /** Where run directories (data, logs) are created; default: the system temp directory. */
    public Builder workDirectory(Path dir) {
      this.workDirectory = dir;
      return this;
    }

    public Builder backend(Backend backend) {
      this.backend = backend;
      return this;
    }

    public PostgresTopology start() {
      TopologySpec spec = new TopologySpec(shards, replicasPerShard, Map.copyOf(settings), postgresHome, osUser,
          workDirectory);
      Backend chosen = backend;
      if (chosen == Backend.AUTO) {
        chosen = ContainerSupport.dockerAvailable() ? Backend.CONTAINERS : Backend.EMBEDDED;
      }
      long t0 = System.nanoTime();
      Cluster cluster;
      if (chosen == Backend.CONTAINERS) {
        ContainerSupport.requireDocker();
        cluster = ContainerSupport.start(spec);
      } else {
        cluster = EmbeddedCluster.start(spec);
      }
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      LOG.log(System.Logger.Level.INFO,
          "PostgreSQL topology up in {0} ms: {1} shard(s) x (1 primary + {2} replica(s)) on {3}",
          took.toMillis(), shards, replicasPerShard, cluster);
      return new PostgresTopology(cluster.shards(), cluster, took, cluster.toString());
    }

    private static Path pathProperty(String key) {
      String value = System.getProperty(key);
      return value == null || value.isBlank() ? null : Path.of(value);
    }

    private static Backend backendProperty() {
      String value = System.getProperty("shardwise.testkit.backend", "embedded").trim().toUpperCase(Locale.ROOT);
      try {
        return Backend.valueOf(value);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("shardwise.testkit.backend must be embedded, containers or auto; was '"
            + System.getProperty("shardwise.testkit.backend") + "'");
      }
    }
  }
}
