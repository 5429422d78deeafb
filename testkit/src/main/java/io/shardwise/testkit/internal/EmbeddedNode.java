package io.shardwise.testkit.internal;

import io.shardwise.testkit.PostgresStartException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A PostgreSQL server process run from the bundled (or configured) binaries on a copied data directory. */
final class EmbeddedNode extends SqlControlledNode {
  private static final String HOST = "127.0.0.1";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final int BIND_ATTEMPTS = 3;

  private final EmbeddedCluster cluster;
  private final Path dataDir;
  private final Path logFile;
  private volatile int port;
  private volatile Process process;

  EmbeddedNode(EmbeddedCluster cluster, int shardIndex, Role role, int replicaIndex, Path dataDir, Path logFile) {
    super(shardIndex, role, replicaIndex);
    this.cluster = cluster;
    this.dataDir = dataDir;
    this.logFile = logFile;
    this.port = freePort();
  }

  Path dataDir() {
    return dataDir;
  }

  @Override
  public String host() {
    return HOST;
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public boolean isRunning() {
    Process p = process;
    return p != null && p.isAlive();
  }

  @Override
  public synchronized void start() {
    if (isRunning()) {
      thaw();
      return;
    }
    for (int attempt = 1; ; attempt++) {
      long logOffset = logSize();
      launch();
      try {
        awaitReady(logOffset);
        return;
      } catch (PostgresStartException e) {
        boolean portTaken = logSince(logOffset).contains("could not create any TCP/IP sockets")
            || logSince(logOffset).contains("Address already in use");
        if (!portTaken || attempt == BIND_ATTEMPTS || !cluster.mayMovePort(this)) {
          throw e;
        }
        killProcessTree();
        port = freePort();
      }
    }
  }

  private void launch() {
    List<String> command = List.of(
        cluster.binaries().bin("postgres").toString(), "-D", dataDir.toString(), "-p", Integer.toString(port));
    ProcessBuilder pb = new ProcessBuilder(cluster.serverUser().command(command))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    pb.environment().put("LC_ALL", "C");
    pb.environment().put("LANG", "C");
    try {
      process = pb.start();
      process.getOutputStream().close();
    } catch (IOException e) {
      throw new PostgresStartException(name() + ": could not run " + command + ": " + e.getMessage(), e);
    }
  }

  /** Ready means: postmaster.pid reports "ready" (a hot standby too, in 17) or "standby", and a session opens. */
  private void awaitReady(long logOffset) {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    Path pidFile = dataDir.resolve("postmaster.pid");
    while (true) {
      Process p = process;
      if (!p.isAlive()) {
        throw failure("exited with code " + p.exitValue() + " while starting", logOffset);
      }
      String status = pidFileStatus(pidFile, p.pid());
      if ((status.equals("ready") || status.equals("standby")) && canConnect()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        killProcessTree();
        throw failure("did not accept connections within " + START_TIMEOUT.toSeconds() + " s", logOffset);
      }
      sleep(20);
    }
  }

  /**
   * The status line of {@code postmaster.pid} once {@code postmaster} has written it. A killed
   * server leaves its own file behind, saying "ready": read before the new postmaster replaces it,
   * it would let a session opened on whatever now listens on the port (another topology's server
   * that took the port while this one was down) pass for this server being up.
   */
  private static String pidFileStatus(Path pidFile, long postmaster) {
    try {
      List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
      boolean written = !lines.isEmpty() && lines.get(0).trim().equals(Long.toString(postmaster));
      return written && lines.size() >= 8 ? lines.get(7).trim() : "";
    } catch (IOException e) {
      return "";
    }
  }

  private boolean canConnect() {
    try (Connection c = controlConnection()) {
      return c.isValid(5);
    } catch (SQLException e) {
      return false;
    }
  }

  private PostgresStartException failure(String what, long logOffset) {
    List<String> tail = tail(logSince(logOffset), 20);
    return new PostgresStartException(name() + " (port " + port + ", data " + dataDir + ") " + what
        + ". Last lines of " + logFile + ":\n  " + String.join("\n  ", tail));
  }

  @Override
  public synchronized void stop() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    try {
      thaw(); // pg_ctl would wait its full timeout for a stopped postmaster to react
      cluster.serverUser().runChecked(List.of(cluster.binaries().bin("pg_ctl").toString(), "stop", "-D",
          dataDir.toString(), "-m", "fast", "-w", "-t", "60"), null, 90);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        killProcessTree();
      }
    } catch (PostgresStartException e) {
      killProcessTree();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      killProcessTree();
    }
  }

  @Override
  public synchronized void kill() {
    killProcessTree(); // SIGKILL ends stopped processes too
  }

  /** The process this node launched is the postmaster itself: {@code setpriv} execs it. */
  @Override
  public synchronized void freeze() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      throw new IllegalStateException(name() + " is not running; start it before freezing it");
    }
    ServerProcesses.stopTree(p.toHandle(), name());
  }

  @Override
  public synchronized void thaw() {
    Process p = process;
    if (p != null && p.isAlive()) {
      ServerProcesses.continueTree(p.toHandle(), name());
    }
  }

  @Override
  public boolean isFrozen() {
    Process p = process;
    return p != null && p.isAlive() && ServerProcesses.isStopped(p.pid());
  }

  private void killProcessTree() {
    Process p = process;
    if (p == null) {
      return;
    }
    List<ProcessHandle> tree = new ArrayList<>();
    tree.add(p.toHandle());
    p.toHandle().descendants().forEach(tree::add);
    tree.forEach(ProcessHandle::destroyForcibly);
    for (ProcessHandle h : tree) {
      try {
        h.onExit().get(10, TimeUnit.SECONDS);
      } catch (Exception ignored) {
        // a process that outlives SIGKILL for 10 s is a kernel matter; the sweep catches it later
      }
    }
  }

  @Override
  public List<String> logTail(int lines) {
    return tail(logSince(0), lines);
  }

  private long logSize() {
    try {
      return Files.size(logFile);
    } catch (IOException e) {
      return 0;
    }
  }

  private String logSince(long offset) {
    try (RandomAccessFile f = new RandomAccessFile(logFile.toFile(), "r")) {
      long length = f.length();
      long from = Math.max(offset, length - 16L * 1024 * 1024);
      byte[] bytes = new byte[(int) (length - from)];
      f.seek(from);
      f.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static List<String> tail(String text, int lines) {
    List<String> all = text.lines().toList();
    return all.subList(Math.max(0, all.size() - lines), all.size());
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new PostgresStartException("No free loopback port: " + e.getMessage(), e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PostgresStartException("Interrupted while waiting for PostgreSQL to start", e);
    }
  }
}
