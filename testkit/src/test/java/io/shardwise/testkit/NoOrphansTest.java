package io.shardwise.testkit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** No PostgreSQL process outlives the run that started it, however that run ends. */
class NoOrphansTest {
  private static final Duration GONE_WITHIN = Duration.ofSeconds(30);
  private Path workDir;
  private Process child;

  @BeforeEach
  void createWorkDir() throws IOException {
    workDir = Files.createTempDirectory("shardwise-orphans-");
  }

  @AfterEach
  void cleanUp() {
    if (child != null) {
      child.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      child.destroyForcibly();
    }
    // the whole tree: a frozen backend whose postmaster is killed alone would stay stopped for ever
    serverTreesUnder(workDir).forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    io.shardwise.testkit.internal.DirectoryTreesForTests.delete(workDir);
  }

  @Test
  void closeStopsEveryServerAndDeletesItsFiles() throws IOException {
    PostgresTopology pg = PostgresTopology.builder().shards(2).replicasPerShard(1).workDirectory(workDir).start();
    assertEquals(4, serversUnder(workDir).size(), "one postmaster per instance while running");

    pg.close();

    assertTrue(serversUnder(workDir).isEmpty(), "no postmaster after close");
    assertTrue(runDirectories().isEmpty(), "the run directory is deleted");
  }

  @Test
  void closeStopsFrozenServersCleanly() throws IOException {
    PostgresTopology pg = PostgresTopology.builder().shards(1).replicasPerShard(1).workDirectory(workDir).start();
    pg.nodes().forEach(PostgresNode::freeze);
    List<Long> frozen = serverTreesUnder(workDir);
    assertTrue(frozen.size() > 2, "postmasters and their children: " + frozen);
    assertTrue(frozen.stream().allMatch(NoOrphansTest::isStopped), "every process of both servers is stopped");

    long started = System.nanoTime();
    pg.close();
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertTrue(took.compareTo(Duration.ofSeconds(30)) < 0,
        "close thaws before pg_ctl stop, which would otherwise wait out its 60 s timeout; took " + took);
    await().atMost(GONE_WITHIN).until(() -> frozen.stream().noneMatch(NoOrphansTest::exists));
    assertTrue(runDirectories().isEmpty(), "the run directory is deleted");
  }

  @Test
  void aKilledJvmsFrozenServersAreThawedAndStoppedByItsWatchdog() throws Exception {
    child = startChildTopology("freeze");
    List<Long> frozen = serverTreesUnder(workDir);
    assertTrue(frozen.size() > 2, "postmasters and their children: " + frozen);
    assertTrue(frozen.stream().allMatch(NoOrphansTest::isStopped), "every process of both servers is stopped");

    child.destroyForcibly();

    await().atMost(GONE_WITHIN).until(() -> frozen.stream().noneMatch(NoOrphansTest::exists));
    await().atMost(GONE_WITHIN).until(() -> runDirectories().isEmpty());
  }

  @Test
  void aKilledJvmsServersAreStoppedByItsWatchdog() throws Exception {
    child = startChildTopology();
    assertEquals(2, serversUnder(workDir).size());

    child.destroyForcibly();

    await().atMost(GONE_WITHIN).until(() -> serversUnder(workDir).isEmpty());
    await().atMost(GONE_WITHIN).until(() -> runDirectories().isEmpty());
  }

  @Test
  void theNextStartSweepsServersOfAJvmThatDiedWithItsWatchdog() throws Exception {
    child = startChildTopology();
    List<ProcessHandle> orphans = serversUnder(workDir);
    assertEquals(2, orphans.size());
    child.toHandle().children()
        .filter(p -> p.info().commandLine().orElse("").contains("shardwise-testkit-watchdog"))
        .forEach(ProcessHandle::destroyForcibly);
    child.destroyForcibly();
    child.toHandle().onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
    assertTrue(orphans.stream().allMatch(ProcessHandle::isAlive), "without hook and watchdog the servers live on");
    List<Path> childTemplates = directories("template-");
    assertEquals(1, childTemplates.size(), "the child's initdb template is left too");

    try (PostgresTopology next = PostgresTopology.builder().workDirectory(workDir).start()) {
      assertTrue(orphans.stream().noneMatch(ProcessHandle::isAlive), "the next start swept them");
      assertEquals(1, runDirectories().size(), "only the new run is left");
      assertFalse(Files.exists(childTemplates.get(0)), "the next start swept the child's template");
      assertEquals(1, directories("template-").size(), "only this JVM's template is left");
    }
  }

  /** How long a child JVM may take to report its topology ready before it is killed and the test fails. */
  private static final Duration CHILD_READY_WITHIN = Duration.ofSeconds(90);

  /**
   * Starts a child JVM that runs a topology and prints READY. Its output goes to a file, not a pipe
   * (nobody drains the pipe once READY is read, and a stalled child would hold the build), and a child
   * not ready within {@link #CHILD_READY_WITHIN} is killed with its children and fails the test.
   */
  private Process startChildTopology(String... fixtureOptions) throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // a short-lived JVM: C1 alone and the serial collector start it faster and change nothing it does
    List<String> command = new java.util.ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-cp", System.getProperty("java.class.path"), OrphanFixture.class.getName(), workDir.toString()));
    command.addAll(List.of(fixtureOptions));
    Path log = Files.createTempFile(workDir, "child", ".log");
    Process p = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
        .start();
    child = p; // killed by cleanUp whatever happens below
    try {
      // the child only prints to its log file: nothing to wait on but the file's content
      await().atMost(CHILD_READY_WITHIN).pollInterval(Duration.ofMillis(100)).until(() -> {
        String seen = Files.readString(log, StandardCharsets.UTF_8);
        boolean ready = seen.lines().anyMatch(line -> line.startsWith("READY"));
        if (!ready && !p.isAlive()) {
          throw new AssertionError("The child JVM ended (exit " + p.exitValue() + ") before its topology was"
              + " ready:\n" + seen);
        }
        return ready;
      });
      return p;
    } catch (org.awaitility.core.ConditionTimeoutException timedOut) {
      // reported below, once the child is gone
    }
    p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    throw new AssertionError("The child JVM did not report its topology ready within " + CHILD_READY_WITHIN.toSeconds()
        + " s and was killed with its children; its output:\n" + Files.readString(log, StandardCharsets.UTF_8));
  }

  private List<Path> runDirectories() throws IOException {
    return directories("run-");
  }

  private List<Path> directories(String prefix) throws IOException {
    try (Stream<Path> entries = Files.list(workDir)) {
      return entries.filter(d -> d.getFileName().toString().startsWith(prefix)).toList();
    }
  }

  /**
   * Postmasters whose data directory lies under {@code dir}. A child shows its postmaster's command
   * line from its fork until it sets its own title, so a process whose parent matches is not one.
   */
  static List<ProcessHandle> serversUnder(Path dir) {
    String marker = "-D " + dir;
    java.util.function.Predicate<ProcessHandle> mentionsDir =
        p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false);
    return ProcessHandle.allProcesses()
        .filter(mentionsDir)
        .filter(p -> p.parent().map(parent -> !mentionsDir.test(parent)).orElse(true))
        .toList();
  }

  /** The pids of every postmaster under {@code dir} and of every process under them. */
  static List<Long> serverTreesUnder(Path dir) {
    List<Long> pids = new java.util.ArrayList<>();
    for (ProcessHandle postmaster : serversUnder(dir)) {
      pids.add(postmaster.pid());
      postmaster.descendants().forEach(child -> pids.add(child.pid()));
    }
    return pids;
  }

  /** {@code T} in {@code /proc/<pid>/stat}: stopped by a signal. */
  static boolean isStopped(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return stat.charAt(stat.lastIndexOf(')') + 2) == 'T';
    } catch (IOException e) {
      throw new AssertionError("process " + pid + " has no readable /proc entry", e);
    }
  }

  /** Whether the process still runs (or is stopped); a zombie nobody has reaped yet does not count. */
  static boolean exists(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      return state != 'Z' && state != 'X';
    } catch (java.nio.file.NoSuchFileException gone) {
      return false;
    } catch (IOException e) {
      if (String.valueOf(e.getMessage()).contains("No such process")) {
        return false; // exited between open and read
      }
      throw new AssertionError("process " + pid + " has an unreadable /proc entry", e);
    }
  }

  @Test
  void serverDetectionSeesNothingWhereNothingRuns() {
    assertFalse(serversUnder(workDir).iterator().hasNext());
  }
}
