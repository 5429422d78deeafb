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

  private static List<String> command(List<String> jvmOptions, String mainClass, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // a short-lived JVM: C1 alone and the serial collector start it faster and change nothing it does
    command.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    command.addAll(List.of("-cp", System.getProperty("java.class.path")));
    command.addAll(jvmOptions);
    command.add(mainClass);
    command.addAll(args);
    return command;
  }

  private static Process start(List<String> command, Path log) throws IOException {
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
  }

  /** A child started by {@link #start}, to be killed by the test; closing it kills it if it still runs. */
  static final class Running implements AutoCloseable {
    private final Process process;
    private final Path log;

    private Running(Process process, Path log) {
      this.process = process;
      this.log = log;
    }

    /** Waits until the child prints a line containing {@code text}; fails with its output if it exits or the limit passes. */
    void awaitOutput(String text, Duration limit) throws IOException, InterruptedException {
      long deadline = System.nanoTime() + limit.toNanos();
      while (!output().contains(text)) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new AssertionError("The child JVM " + (process.isAlive() ? "did not print '" + text + "' within "
              + limit.toSeconds() + " s" : "exited " + process.exitValue() + " before printing '" + text + "'")
              + "; its output:\n" + tail(output()));
        }
        Thread.sleep(20);
      }
    }

    /** SIGKILL (what {@code destroyForcibly} sends on Linux): no shutdown hook, no cleanup; returns once it is gone. */
    void kill9() throws InterruptedException {
      process.destroyForcibly();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        throw new AssertionError("The child JVM " + process.pid() + " outlived kill -9 for 10 s");
      }
    }

    String output() throws IOException {
      return Files.readString(log, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      Files.deleteIfExists(log);
    }
  }

  /** Starts a child JVM and returns at once; the caller kills it (or closes it). */
  static Running start(List<String> jvmOptions, String mainClass, List<String> args) throws IOException {
    Path log = Files.createTempFile("shardwise-child-jvm-", ".log");
    return new Running(start(command(jvmOptions, mainClass, args), log), log);
  }

  private static String tail(String output) {
    return output.length() <= 4000 ? output : "..." + output.substring(output.length() - 4000);
  }

  static Result run(Duration limit, List<String> jvmOptions, String mainClass, List<String> args) throws IOException,
      InterruptedException {
    List<String> command = command(jvmOptions, mainClass, args);
    Path log = Files.createTempFile("shardwise-child-jvm-", ".log");
    try {
      Process p = start(command, log);
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
            + tail(output));
      }
      return new Result(p.exitValue(), output);
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
