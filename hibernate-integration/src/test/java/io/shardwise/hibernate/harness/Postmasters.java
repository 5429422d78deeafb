package io.shardwise.hibernate.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The PostgreSQL servers this JVM's testkit runs, read from {@code /proc}: every process whose
 * command line is {@code .../postgres -D <dir>} with a data directory in one of this JVM's run
 * directories ({@code run-<jvm pid>-...}). Backends rename themselves ({@code postgres: ...}), so
 * only postmasters match.
 */
final class Postmasters {
  private Postmasters() {}

  /** One line per postmaster: its pid and data directory. */
  static List<String> ofThisJvm() {
    String runMark = "/run-" + ProcessHandle.current().pid() + "-";
    List<String> found = new ArrayList<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString()
        .chars().allMatch(Character::isDigit))) {
      for (Path proc : procs) {
        String[] args;
        try {
          args = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8).split("\0");
        } catch (IOException gone) {
          continue;
        }
        if (args.length < 3 || !args[0].endsWith("/postgres")) {
          continue;
        }
        for (int i = 1; i + 1 < args.length; i++) {
          if (args[i].equals("-D") && args[i + 1].contains(runMark)) {
            found.add("pid " + proc.getFileName() + " " + args[i + 1]);
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("Cannot list /proc to count PostgreSQL servers", e);
    }
    return found;
  }
}
