package io.shardwise.testkit.junit;

import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/** Starts, shares and stops the topology of {@link ShardedPostgres}; resolves its parameters. */
public final class ShardedPostgresExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ShardedPostgresExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    topology(context);
  }

  /** The topologies of {@link ShardedPostgres.Scope#RUN}: one per configuration in this JVM. */
  private static final java.util.Map<String, PostgresTopology> SHARED = new java.util.concurrent.ConcurrentHashMap<>();

  /** The topology of the test class in {@code context}, started on first use. */
  public static PostgresTopology topology(ExtensionContext context) {
    ShardedPostgres config = findConfig(context).orElseThrow(() -> new IllegalStateException(
        context.getDisplayName() + " uses ShardedPostgresExtension without @ShardedPostgres on its class"));
    // A store lookup falls back to the parent stores up to the run's root, where the RUN topologies
    // are kept: without the scope in the key, a CLASS topology would be served a RUN one of the same
    // shape, and the class's kills and left-over data would land on every class sharing it.
    String key = config.scope() + " " + key(config);
    if (config.scope() == ShardedPostgres.Scope.RUN) {
      // the run's root store stops it when the run ends
      context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(key, k -> new StartedTopology(shared(config)),
          StartedTopology.class);
      return shared(config);
    }
    // a @Nested class finds the topology of its enclosing class in the parent store
    return classContext(context).getStore(NAMESPACE)
        .getOrComputeIfAbsent(key, k -> new StartedTopology(start(config)), StartedTopology.class)
        .topology;
  }

  /**
   * The topology of a {@link ShardedPostgres.Scope#RUN} configuration, started on first use and
   * shared by every user in this JVM with the same configuration — test classes, and test
   * application contexts (Spring's context cache outlives a test class) — until the run ends or
   * the JVM exits.
   */
  public static PostgresTopology shared(ShardedPostgres config) {
    if (config.scope() != ShardedPostgres.Scope.RUN) {
      throw new IllegalArgumentException("Only a @ShardedPostgres(scope = RUN) topology is shared; "
          + "a CLASS one belongs to its test class");
    }
    return SHARED.computeIfAbsent(key(config), k -> {
      PostgresTopology started = start(config);
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "stop " + k + " PostgreSQL topology"));
      return started;
    });
  }

  private static String key(ShardedPostgres config) {
    return config.shards() + "x" + config.replicas() + Arrays.toString(config.settings());
  }

  private static ExtensionContext classContext(ExtensionContext context) {
    ExtensionContext c = context;
    while (c.getTestMethod().isPresent() && c.getParent().isPresent()) {
      c = c.getParent().get();
    }
    return c;
  }

  private static Optional<ShardedPostgres> findConfig(ExtensionContext context) {
    for (Optional<Class<?>> type = context.getTestClass(); type.isPresent(); ) {
      Optional<ShardedPostgres> found = AnnotationSupport.findAnnotation(type.get(), ShardedPostgres.class);
      if (found.isPresent()) {
        return found;
      }
      Class<?> enclosing = type.get().getEnclosingClass();
      type = Optional.ofNullable(enclosing);
    }
    return Optional.empty();
  }

  private static PostgresTopology start(ShardedPostgres config) {
    PostgresTopology.Builder builder = PostgresTopology.builder()
        .shards(config.shards())
        .replicasPerShard(config.replicas());
    for (String setting : config.settings()) {
      int eq = setting.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("@ShardedPostgres settings take \"name=value\", got \"" + setting + "\"");
      }
      builder.setting(setting.substring(0, eq).trim(), setting.substring(eq + 1).trim());
    }
    return builder.start();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext extension) {
    Class<?> type = parameter.getParameter().getType();
    if (type == PostgresTopology.class) {
      return true;
    }
    return parameter.isAnnotated(Node.class)
        && (type == DataSource.class || type == String.class || type == PostgresNode.class);
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext extension) {
    PostgresTopology topology = topology(extension);
    Class<?> type = parameter.getParameter().getType();
    if (type == PostgresTopology.class) {
      return topology;
    }
    Node node = parameter.findAnnotation(Node.class).orElseThrow();
    if (node.shard() < 0 || node.shard() >= topology.shardCount()) {
      throw new ParameterResolutionException("@Node(shard = " + node.shard() + ") but the topology has shards 0.."
          + (topology.shardCount() - 1));
    }
    PostgresShard shard = topology.shard(node.shard());
    List<PostgresNode> replicas = shard.replicas();
    if (node.replica() >= replicas.size()) {
      throw new ParameterResolutionException("@Node(replica = " + node.replica() + ") but shard " + node.shard()
          + " has " + replicas.size() + " replica(s); raise @ShardedPostgres(replicas)");
    }
    PostgresNode chosen = node.replica() < 0 ? shard.primary() : shard.replica(node.replica());
    if (type == PostgresNode.class) {
      return chosen;
    }
    return type == String.class ? chosen.jdbcUrl() : chosen.dataSource();
  }

  /** Closes the topology when its store (class or run) is closed. */
  private static final class StartedTopology implements ExtensionContext.Store.CloseableResource, AutoCloseable {
    final PostgresTopology topology;

    StartedTopology(PostgresTopology topology) {
      this.topology = topology;
    }

    @Override
    public void close() {
      SHARED.values().remove(topology);
      topology.close();
    }
  }
}
