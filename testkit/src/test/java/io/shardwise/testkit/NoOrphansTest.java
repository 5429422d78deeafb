package io.shardwise.testkit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
    serversUnder(workDir).forEach(ProcessHandle::destroyForcibly);
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
  void aKilledJvmsServersAreStoppedByItsWatchdog() throws IOException {
    child = startChildTopology();
    assertEquals(2, serversUnder(workDir).size());

    child.destroyForcibly();

    await().atMost(GONE_WITHIN).until(() -> serversUnder(workDir).isEmpty());
    await().atMost(GONE_WITHIN).until(() -> runDirectories().isEmpty());
  }

  @Test
  void theNextStartSweepsServersOfAJvmThatDiedWithItsWatchdog() throws IOException {
    child = startChildTopology();
    List<ProcessHandle> orphans = serversUnder(workDir);
    assertEquals(2, orphans.size());
    child.toHandle().children()
        .filter(p -> p.info().commandLine().orElse("").contains("shardwise-testkit-watchdog"))
        .forEach(ProcessHandle::destroyForcibly);
    child.destroyForcibly();
    child.toHandle().onExit().join();
    assertTrue(orphans.stream().allMatch(ProcessHandle::isAlive), "without hook and watchdog the servers live on");

    try (PostgresTopology next = PostgresTopology.builder().workDirectory(workDir).start()) {
      assertTrue(orphans.stream().noneMatch(ProcessHandle::isAlive), "the next start swept them");
      assertEquals(1, runDirectories().size(), "only the new run is left");
    }
  }

  private Process startChildTopology() throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        OrphanFixture.class.getName(), workDir.toString())
        .redirectErrorStream(true)
        .start();
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    StringBuilder seen = new StringBuilder();
    for (String line; (line = out.readLine()) != null; ) {
      seen.append(line).append('\n');
      if (line.startsWith("READY")) {
        return p;
      }
    }
    throw new AssertionError("The child JVM ended before its topology was ready:\n" + seen);
  }

  private List<Path> runDirectories() throws IOException {
    try (Stream<Path> runs = Files.list(workDir)) {
      return runs.filter(d -> d.getFileName().toString().startsWith("run-")).toList();
    }
  }

  /** Postmasters whose data directory lies under {@code dir} (children have other command lines). */
  static List<ProcessHandle> serversUnder(Path dir) {
    String marker = "-D " + dir;
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false))
        .toList();
  }

  @Test
  void serverDetectionSeesNothingWhereNothingRuns() {
    assertFalse(serversUnder(workDir).iterator().hasNext());
  }
}
