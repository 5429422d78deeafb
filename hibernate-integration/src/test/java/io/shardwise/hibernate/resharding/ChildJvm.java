package io.shardwise.hibernate.resharding;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A child JVM on the test class path that can never hang the build: its output goes to a file,
 * not to a pipe (a pipe nobody drains stalls a chatty child once the pipe's buffer is full), its
 * standard input is empty, and it gets a bounded time. A child still running at the limit is killed
 * with its own children, and the caller gets an {@link AssertionError} that says so and shows the
 * child's last output.
 */
final class ChildJvm {
  private ChildJvm() {}

  /** What the child did: its exit code and everything it printed (standard output and error). */
  record Result(int exitCode, String output) {}

  static Result run(Duration limit, List<String> jvmOptions, String mainClass, List<String> args) throws IOException,
      InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-cp", System.getProperty("java.class.path")));
    command.addAll(jvmOptions);
    command.add(mainClass);
    command.addAll(args);
    Path log = Files.createTempFile("shardwise-child-jvm-", ".log");
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
      boolean exited = false;
      try {
        exited = p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
      } finally {
        if (!exited) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
          try {
            p.onExit().get(10, TimeUnit.SECONDS);
          } catch (ExecutionException | TimeoutException e) {
            // reported below with the output
          }
        }
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      if (!exited) {
        throw new AssertionError("The child JVM " + mainClass + " " + String.join(" ", args) + " did not exit within "
            + limit.toSeconds() + " s and was killed (alive now: " + p.isAlive() + "); its last output:\n"
            + (output.length() <= 4000 ? output : "..." + output.substring(output.length() - 4000)));
      }
      return new Result(p.exitValue(), output);
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
