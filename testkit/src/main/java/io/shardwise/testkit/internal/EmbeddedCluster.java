package io.shardwise.testkit.internal;

import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresNode.Role;
import io.shardwise.testkit.PostgresStartException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * The embedded backend: PostgreSQL processes on loopback, a cold copy of the JVM's one initdb
 * ({@link DataDirectoryTemplate}) for every instance, with the topology's settings appended to each
 * copy (a replica is a copy plus {@code standby.signal} and {@code primary_conninfo}, so it streams
 * from its primary from the template's checkpoint on).
 *
 * <p>Nothing outlives the run: {@link #close()} stops every server (also from a shutdown hook); a
 * watchdog process kills them if the JVM dies without hooks; and the next start sweeps runs whose
 * JVM is gone.
 */
public final class EmbeddedCluster implements Cluster {
  private static final System.Logger LOG = System.getLogger("io.shardwise.testkit");

  private final ServerUser serverUser;
  private final PostgresBinaries binaries;
  private final Path workDir;
  private final Path runDir;
  private final List<List<PostgresNode>> shards = new ArrayList<>();
  private final List<EmbeddedNode> nodes = new ArrayList<>();
  private Process watchdog;
  private Thread shutdownHook;
  private volatile boolean starting = true;
  private volatile boolean closed;

  private EmbeddedCluster(ServerUser serverUser, PostgresBinaries binaries, Path workDir, Path runDir) {
    this.serverUser = serverUser;
    this.binaries = binaries;
    this.workDir = workDir;
    this.runDir = runDir;
  }

  ServerUser serverUser() {
    return serverUser;
  }

  PostgresBinaries binaries() {
    return binaries;
  }

  /** A port may change only while the topology starts, before anybody has been told it. */
  boolean mayMovePort(EmbeddedNode node) {
    return starting;
  }

  public Path runDirectory() {
    return runDir;
  }

  /** Shards in order; in each, the primary first, then its replicas. */
  @Override
  public List<List<PostgresNode>> shards() {
    return shards;
  }

  public static EmbeddedCluster start(TopologySpec spec) {
    String tmp = System.getProperty("java.io.tmpdir");
    ServerUser user = ServerUser.detect(spec.osUser());
    Path workDir = spec.workDirectory() != null
        ? spec.workDirectory()
        : Path.of(tmp, "shardwise-testkit-" + System.getProperty("user.name"));
    StaleRuns.sweep(workDir);
    PostgresBinaries binaries = PostgresBinaries.resolve(spec.postgresHome(), Path.of(tmp, "shardwise-postgres"));
    Path runDir;
    try {
      Files.createDirectories(workDir);
      user.letTraverse(workDir);
      runDir = Files.createTempDirectory(workDir, "run-" + ProcessHandle.current().pid() + "-");
      StaleRuns.writeOwner(runDir);
      Files.createDirectories(runDir.resolve("logs"));
      user.own(runDir);
    } catch (IOException e) {
      throw new PostgresStartException("Could not prepare the testkit work directory " + workDir + ": " + e.getMessage(), e);
    }
    user.requireAccess(runDir);
    EmbeddedCluster cluster = new EmbeddedCluster(user, binaries, workDir, runDir);
    try {
      cluster.startWatchdog();
      cluster.registerShutdownHook();
      cluster.build(spec);
      cluster.starting = false;
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private void build(TopologySpec spec) {
    Path template = DataDirectoryTemplate.of(workDir, binaries, serverUser);

    List<EmbeddedNode> primaries = new ArrayList<>();
    List<EmbeddedNode> replicas = new ArrayList<>();
    List<Path> copies = new ArrayList<>();
    for (int s = 0; s < spec.shards(); s++) {
      List<PostgresNode> shard = new ArrayList<>();
      EmbeddedNode primary = newNode(s, Role.PRIMARY, 0);
      primaries.add(primary);
      shard.add(primary);
      copies.add(primary.dataDir());
      for (int r = 0; r < spec.replicasPerShard(); r++) {
        EmbeddedNode replica = newNode(s, Role.REPLICA, r);
        replicas.add(replica);
        shard.add(replica);
        copies.add(replica.dataDir());
      }
      shards.add(List.copyOf(shard));
    }
    copyTemplate(template, copies);
    String conf = settingsLines(spec.effectiveSettings());
    for (Path copy : copies) {
      appendConf(copy, conf);
    }
    inParallel(primaries, EmbeddedNode::start);
    for (EmbeddedNode replica : replicas) {
      EmbeddedNode primary = (EmbeddedNode) shards.get(replica.shardIndex()).get(0);
      configureStandby(replica, primary);
    }
    inParallel(replicas, EmbeddedNode::start);
  }

  private EmbeddedNode newNode(int shard, Role role, int replica) {
    String name = "shard" + shard + (role == Role.PRIMARY ? "-primary" : "-replica" + replica);
    EmbeddedNode node = new EmbeddedNode(this, shard, role, replica, runDir.resolve(name),
        runDir.resolve("logs").resolve(name + ".log"));
    nodes.add(node);
    return node;
  }

  private static String settingsLines(Map<String, String> settings) {
    StringBuilder conf = new StringBuilder("\n# --- shardwise testkit ---\n");
    settings.forEach((k, v) -> conf.append(k).append(" = ").append(v).append('\n'));
    return conf.toString();
  }

  private static void appendConf(Path dataDir, String lines) {
    Path conf = dataDir.resolve("postgresql.conf");
    try {
      Files.writeString(conf, lines, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new PostgresStartException("Could not write " + conf + ": " + e.getMessage(), e);
    }
  }

  /** {@code cp -a} as the server account keeps ownership and the 0700 mode PostgreSQL insists on. */
  private void copyTemplate(Path template, List<Path> targets) {
    inParallel(targets, target -> serverUser.runChecked(
        List.of("cp", "-a", template.toString(), target.toString()), runDir, 120));
  }

  private void configureStandby(EmbeddedNode replica, EmbeddedNode primary) {
    Path dir = replica.dataDir();
    String conninfo = "host=" + primary.host() + " port=" + primary.port() + " user=postgres application_name="
        + replica.name().replace('-', '_');
    try {
      Files.writeString(dir.resolve("postgresql.conf"), "primary_conninfo = '" + conninfo + "'\n",
          StandardCharsets.UTF_8, StandardOpenOption.APPEND);
      Path signal = Files.createFile(dir.resolve("standby.signal"));
      serverUser.own(signal);
    } catch (IOException e) {
      throw new PostgresStartException("Could not configure " + replica.name() + " as a standby: " + e.getMessage(), e);
    }
  }

  private static <T> void inParallel(List<T> items, Consumer<T> action) {
    if (items.size() <= 1) {
      items.forEach(action);
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(items.size(), 8), r -> {
      Thread t = new Thread(r, "shardwise-testkit-start");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (T item : items) {
        futures.add(pool.submit(() -> action.accept(item)));
      }
      RuntimeException first = null;
      for (Future<?> f : futures) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          RuntimeException cause = e.getCause() instanceof RuntimeException re ? re : new PostgresStartException(
              String.valueOf(e.getCause()), e.getCause());
          if (first == null) {
            first = cause;
          } else {
            first.addSuppressed(cause);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new PostgresStartException("Interrupted while starting the topology", e);
        }
      }
      if (first != null) {
        throw first;
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A shell that blocks on its stdin, a pipe from this JVM. When the JVM ends in any way the pipe
   * closes and the shell kills whatever servers are left in this run and removes the run directory.
   * A frozen server is continued first (the postmaster and every process under it, found through
   * the parent pids in {@code /proc/<pid>/stat}): stopped backends would never see their postmaster die.
   */
  private void startWatchdog() {
    String script = """
        trap '' INT TERM HUP
        cat > /dev/null
        tree_of() {
          all=$1; frontier=$1
          while [ -n "$frontier" ]; do
            next=
            for s in /proc/[0-9]*/stat; do
              read -r line < "$s" 2>/dev/null || continue
              rest=${line##*") "}
              set -- $rest
              for parent in $frontier; do
                if [ "$2" = "$parent" ]; then next="$next ${line%% *}"; fi
              done
            done
            all="$all$next"; frontier=$next
          done
          echo $all
        }
        run="$1"
        for f in "$run"/*/postmaster.pid; do
          [ -f "$f" ] || continue
          pid=$(sed -n 1p "$f"); dir=$(sed -n 2p "$f")
          if [ -n "$pid" ] && tr '\\000' ' ' < /proc/"$pid"/cmdline 2>/dev/null | grep -qF -- "$dir"; then
            kill -CONT $(tree_of "$pid") 2>/dev/null
            kill -QUIT "$pid" 2>/dev/null; sleep 2; kill -KILL "$pid" 2>/dev/null
          fi
        done
        rm -rf -- "$run"
        """;
    try {
      watchdog = new ProcessBuilder("sh", "-c", script, "shardwise-testkit-watchdog", runDir.toString())
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
    } catch (IOException e) {
      throw new PostgresStartException("Could not start the testkit watchdog: " + e.getMessage(), e);
    }
  }

  private void registerShutdownHook() {
    shutdownHook = new Thread(this::stopAll, "shardwise-testkit-shutdown");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopAll();
    if (shutdownHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException alreadyShuttingDown) {
        // the hook is running or has run: it stops the same servers
      }
    }
  }

  private synchronized void stopAll() {
    inParallel(nodes, node -> {
      try {
        node.stop();
      } catch (RuntimeException e) {
        node.kill();
      }
    });
    DirectoryTrees.deleteQuietly(runDir);
    if (watchdog != null) {
      try {
        watchdog.getOutputStream().close();
      } catch (IOException ignored) {
        // the watchdog is gone already
      }
    }
  }

  @Override
  public String toString() {
    return "embedded PostgreSQL (" + binaries.home() + ") in " + runDir + " as " + serverUser.name();
  }
}
