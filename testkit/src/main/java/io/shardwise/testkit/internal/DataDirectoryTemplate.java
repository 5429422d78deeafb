package io.shardwise.testkit.internal;

import io.shardwise.testkit.PostgresStartException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One initdb per JVM, work directory, binaries and server account: every topology copies its
 * instances from the same freshly initialised data directory, which nobody ever starts a server on.
 * Settings are not part of it; each instance gets them appended to its own copy's postgresql.conf.
 *
 * <p>The template lives in {@code <workDir>/template-<pid>-<random>} with an {@code owner} file:
 * a shutdown hook deletes it at the JVM's exit, and {@link StaleRuns#sweep} deletes one whose JVM
 * is gone, like a run directory.
 */
final class DataDirectoryTemplate {
  static final String PREFIX = "template-";

  private record Key(Path workDir, Path binaries, String serverUser) {}

  private static final Map<Key, Path> TEMPLATES = new ConcurrentHashMap<>();

  private DataDirectoryTemplate() {}

  /** The template's data directory, made by initdb on first use; made again if it was deleted under us. */
  static Path of(Path workDir, PostgresBinaries binaries, ServerUser user) {
    Key key = new Key(workDir.toAbsolutePath(), binaries.home(), user.name());
    return TEMPLATES.compute(key, (k, existing) -> existing != null && isInitialised(existing)
        ? existing
        : create(workDir, binaries, user));
  }

  private static boolean isInitialised(Path dataDir) {
    return Files.isRegularFile(dataDir.resolve("PG_VERSION")) && Files.isRegularFile(dataDir.resolve("postgresql.conf"));
  }

  private static Path create(Path workDir, PostgresBinaries binaries, ServerUser user) {
    Path home;
    try {
      home = Files.createTempDirectory(workDir, PREFIX + ProcessHandle.current().pid() + "-");
      StaleRuns.writeOwner(home);
      user.own(home);
    } catch (IOException e) {
      throw new PostgresStartException("Could not prepare a template directory in " + workDir + ": " + e.getMessage(), e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> DirectoryTrees.deleteQuietly(home),
        "shardwise-testkit-template-cleanup"));
    Path dataDir = home.resolve("data");
    try {
      user.runChecked(List.of(binaries.bin("initdb").toString(), "-D", dataDir.toString(), "-U", "postgres",
          "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"), home, 120);
    } catch (RuntimeException e) {
      DirectoryTrees.deleteQuietly(home);
      throw e;
    }
    return dataDir;
  }
}
