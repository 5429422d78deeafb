package io.shardwise.testkit.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Run directories and their owner files. Every run writes {@code owner} (JVM pid and start time);
 * at the next start, a run whose JVM is gone is stale: its servers are killed and its directory
 * removed. This covers a JVM that died without running its shutdown hook and whose watchdog was
 * killed with it.
 */
final class StaleRuns {
  private static final System.Logger LOG = System.getLogger("io.shardwise.testkit");
  static final String OWNER_FILE = "owner";

  private StaleRuns() {}

  static void writeOwner(Path runDir) throws IOException {
    ProcessHandle self = ProcessHandle.current();
    long started = self.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    Files.writeString(runDir.resolve(OWNER_FILE), self.pid() + " " + started + "\n", StandardCharsets.UTF_8);
  }

  /** Kills and removes every run (and {@link DataDirectoryTemplate}) under {@code workDir} whose owning JVM no longer runs. */
  static int sweep(Path workDir) {
    if (!Files.isDirectory(workDir)) {
      return 0;
    }
    int swept = 0;
    try (DirectoryStream<Path> runs = Files.newDirectoryStream(workDir, "{run-,"
        + DataDirectoryTemplate.PREFIX + "}*")) {
      for (Path run : runs) {
        if (!ownerAlive(run)) {
          int killed = killServers(run);
          DirectoryTrees.deleteQuietly(run);
          swept++;
          LOG.log(System.Logger.Level.WARNING,
              "Swept stale testkit run {0}: its JVM is gone; killed {1} PostgreSQL server(s) it left", run, killed);
        }
      }
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "Could not sweep stale runs in " + workDir + ": " + e.getMessage());
    }
    return swept;
  }

  private static boolean ownerAlive(Path run) {
    try {
      String[] parts = Files.readString(run.resolve(OWNER_FILE)).trim().split(" ");
      long pid = Long.parseLong(parts[0]);
      long started = Long.parseLong(parts[1]);
      Optional<ProcessHandle> owner = ProcessHandle.of(pid);
      return owner.isPresent() && owner.get().isAlive()
          && owner.get().info().startInstant().map(Instant::toEpochMilli).map(t -> t == started).orElse(true);
    } catch (IOException | RuntimeException e) {
      // no readable owner: only a run older than a minute counts as abandoned (a new one may be writing it)
      try {
        return Files.getLastModifiedTime(run).toInstant().isAfter(Instant.now().minusSeconds(60));
      } catch (IOException ex) {
        return false;
      }
    }
  }

  /** SIGKILLs each postmaster recorded in the run's data directories, and its children. */
  static int killServers(Path run) {
    int killed = 0;
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(run)) {
      for (Path dir : dirs) {
        Path pidFile = dir.resolve("postmaster.pid");
        if (!Files.isRegularFile(pidFile)) {
          continue;
        }
        List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
        if (lines.size() < 2) {
          continue;
        }
        long pid = Long.parseLong(lines.get(0).trim());
        String dataDir = lines.get(1).trim();
        Optional<ProcessHandle> postmaster = ProcessHandle.of(pid);
        if (postmaster.isPresent() && commandLineMentions(pid, dataDir)) {
          List<ProcessHandle> tree = new ArrayList<>();
          tree.add(postmaster.get());
          postmaster.get().descendants().forEach(tree::add);
          tree.forEach(ProcessHandle::destroyForcibly);
          for (ProcessHandle h : tree) {
            try {
              h.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception ignored) {
              // reported by the caller's count; nothing else to do
            }
          }
          killed++;
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "Could not inspect " + run + ": " + e.getMessage());
    }
    return killed;
  }

  /** Guards against a recycled pid: the process must be the postmaster of that data directory. */
  private static boolean commandLineMentions(long pid, String dataDir) {
    try {
      byte[] cmdline = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
      return new String(cmdline, StandardCharsets.UTF_8).replace('\0', ' ').contains(dataDir);
    } catch (IOException e) {
      return false;
    }
  }
}
