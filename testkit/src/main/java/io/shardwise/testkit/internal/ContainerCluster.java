package io.shardwise.testkit.internal;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Ports;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresNode.Role;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;

/**
 * The Testcontainers backend: one {@code postgres:17} container per instance on a private Docker
 * network. Replicas are seeded with {@code pg_basebackup -R} from their primary and stream from it.
 */
final class ContainerCluster implements Cluster {
  private static final String IMAGE = System.getProperty("shardwise.testkit.image", "postgres:17");
  private static final String DATA = "/var/lib/postgresql/data";

  private final Network network = Network.newNetwork();
  private final List<List<PostgresNode>> shards = new ArrayList<>();
  private final List<ContainerNode> nodes = new ArrayList<>();

  static boolean dockerReachable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  static ContainerCluster start(TopologySpec spec) {
    ContainerCluster cluster = new ContainerCluster();
    try {
      cluster.build(spec);
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private void build(TopologySpec spec) {
    List<String> settings = new ArrayList<>();
    for (Map.Entry<String, String> e : spec.effectiveSettings().entrySet()) {
      if (!e.getKey().equals("listen_addresses") && !e.getKey().equals("unix_socket_directories")) {
        settings.add("-c");
        settings.add(e.getKey() + "=" + e.getValue().replace("'", ""));
      }
    }
    for (int s = 0; s < spec.shards(); s++) {
      String primaryAlias = "shard" + s + "-primary";
      List<String> primaryCommand = new ArrayList<>(List.of("postgres"));
      primaryCommand.addAll(settings);
      GenericContainer<?> primary = new GenericContainer<>(IMAGE)
          .withNetwork(network)
          .withNetworkAliases(primaryAlias)
          .withEnv("POSTGRES_HOST_AUTH_METHOD", "trust")
          .withCopyToContainer(Transferable.of(
              "#!/bin/sh\necho 'host replication all all trust' >> \"$PGDATA/pg_hba.conf\"\n", 0755),
              "/docker-entrypoint-initdb.d/10-replication.sh")
          .withExposedPorts(5432)
          .withCommand(primaryCommand.toArray(String[]::new))
          .waitingFor(Wait.forLogMessage(".*database system is ready to accept connections.*", 2))
          .withStartupTimeout(Duration.ofMinutes(2));
      primary.start();
      List<PostgresNode> shard = new ArrayList<>();
      ContainerNode primaryNode = new ContainerNode(s, Role.PRIMARY, 0, primary);
      shard.add(primaryNode);
      nodes.add(primaryNode);
      for (int r = 0; r < spec.replicasPerShard(); r++) {
        String seed = "until gosu postgres pg_basebackup -h " + primaryAlias + " -U postgres -D " + DATA
            + " -R -X stream; do rm -rf " + DATA + "/*; sleep 1; done; chmod 700 " + DATA
            + "; exec gosu postgres postgres " + String.join(" ", settings);
        GenericContainer<?> replica = new GenericContainer<>(IMAGE)
            .withNetwork(network)
            .withNetworkAliases("shard" + s + "-replica" + r)
            .withExposedPorts(5432)
            .withCreateContainerCmdModifier(cmd -> cmd.withEntrypoint("bash", "-c"))
            .withCommand("mkdir -p " + DATA + " && chown postgres " + DATA + " && " + seed)
            .waitingFor(Wait.forLogMessage(".*ready to accept read-only connections.*", 1))
            .withStartupTimeout(Duration.ofMinutes(2));
        replica.start();
        ContainerNode replicaNode = new ContainerNode(s, Role.REPLICA, r, replica);
        shard.add(replicaNode);
        nodes.add(replicaNode);
      }
      shards.add(List.copyOf(shard));
    }
  }

  @Override
  public List<List<PostgresNode>> shards() {
    return shards;
  }

  @Override
  public void close() {
    for (ContainerNode node : nodes) {
      node.thaw();
      node.container.stop();
    }
    network.close();
  }

  @Override
  public String toString() {
    return "Testcontainers (" + IMAGE + ")";
  }

  /** Stop, kill and start go through the Docker API; the host port may change on start and is re-read. */
  static final class ContainerNode extends SqlControlledNode {
    private final GenericContainer<?> container;
    private volatile int port;

    ContainerNode(int shard, Role role, int replica, GenericContainer<?> container) {
      super(shard, role, replica);
      this.container = container;
      this.port = container.getMappedPort(5432);
    }

    private DockerClient docker() {
      return container.getDockerClient();
    }

    @Override
    public String host() {
      return container.getHost();
    }

    @Override
    public int port() {
      return port;
    }

    @Override
    public boolean isRunning() {
      Boolean running = docker().inspectContainerCmd(container.getContainerId()).exec().getState().getRunning();
      return Boolean.TRUE.equals(running);
    }

    @Override
    public void stop() {
      thaw();
      docker().stopContainerCmd(container.getContainerId()).withTimeout(60).exec();
    }

    @Override
    public void kill() {
      thaw();
      docker().killContainerCmd(container.getContainerId()).withSignal("KILL").exec();
    }

    /** {@code docker pause}: the cgroup freezer stops every process of the container at once. */
    @Override
    public void freeze() {
      if (!isRunning()) {
        throw new IllegalStateException(name() + " is not running; start it before freezing it");
      }
      docker().pauseContainerCmd(container.getContainerId()).exec();
    }

    @Override
    public void thaw() {
      if (isFrozen()) {
        docker().unpauseContainerCmd(container.getContainerId()).exec();
      }
    }

    @Override
    public boolean isFrozen() {
      Boolean paused = docker().inspectContainerCmd(container.getContainerId()).exec().getState().getPaused();
      return Boolean.TRUE.equals(paused);
    }

    @Override
    public void start() {
      if (isRunning()) {
        thaw();
        return;
      }
      docker().startContainerCmd(container.getContainerId()).exec();
      Ports.Binding[] bindings = docker().inspectContainerCmd(container.getContainerId()).exec()
          .getNetworkSettings().getPorts().getBindings().get(ExposedPort.tcp(5432));
      port = Integer.parseInt(bindings[0].getHostPortSpec());
      awaitCondition(this::canConnect, Duration.ofMinutes(2), () -> name() + " to accept connections");
    }

    private boolean canConnect() {
      try (Connection c = controlConnection()) {
        return c.isValid(5);
      } catch (SQLException e) {
        return false;
      }
    }

    @Override
    public List<String> logTail(int lines) {
      List<String> all = container.getLogs().lines().toList();
      return all.subList(Math.max(0, all.size() - lines), all.size());
    }
  }
}
