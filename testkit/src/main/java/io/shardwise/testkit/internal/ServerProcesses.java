package io.shardwise.testkit.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Job-control signals for a postmaster and every process under it. Java cannot send SIGSTOP or
 * SIGCONT, so the shell's {@code kill} builtin does (present wherever {@code sh} is). Children are
 * found through {@link ProcessHandle#descendants()}, which reads the parent pid of every
 * {@code /proc/<pid>/stat}.
 */
final class ServerProcesses {
  private static final Duration STATE_TIMEOUT = Duration.ofSeconds(10);
  private static final char GONE = '-';

  private ServerProcesses() {}

  /**
   * SIGSTOP to the postmaster first, so that it forks nothing more, then to every descendant;
   * returns once each of them is in the stopped state.
   */
  static void stopTree(ProcessHandle postmaster, String serverName) {
    signal("STOP", List.of(postmaster.pid()), serverName);
    Set<Long> signalled = new LinkedHashSet<>(List.of(postmaster.pid()));
    while (true) {
      List<Long> fresh = new ArrayList<>();
      postmaster.descendants().map(ProcessHandle::pid).filter(pid -> !signalled.contains(pid)).forEach(fresh::add);
      if (fresh.isEmpty()) {
        break;
      }
      signal("STOP", fresh, serverName);
      signalled.addAll(fresh);
    }
    awaitState(signalled, true, "SIGSTOP", serverName);
  }

  /**
   * SIGCONT to the postmaster and every process under it now; returns once none of them is
   * stopped. Harmless on processes that run.
   */
  static void continueTree(ProcessHandle postmaster, String serverName) {
    List<Long> pids = new ArrayList<>();
    pids.add(postmaster.pid());
    postmaster.descendants().map(ProcessHandle::pid).forEach(pids::add);
    signal("CONT", pids, serverName);
    awaitState(pids, false, "SIGCONT", serverName);
  }

  private static void awaitState(Iterable<Long> pids, boolean stopped, String after, String serverName) {
    long deadline = System.nanoTime() + STATE_TIMEOUT.toNanos();
    for (long pid : pids) {
      while (!reached(state(pid), stopped)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(serverName + ": process " + pid + " is in state " + state(pid) + " "
              + STATE_TIMEOUT.toSeconds() + " s after " + after);
        }
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(serverName + ": interrupted while waiting for " + after + " to take effect", e);
        }
      }
    }
  }

  /** A process that has exited (gone, or a zombie its stopped parent cannot reap) counts as stopped. */
  private static boolean reached(char state, boolean stopped) {
    return stopped ? state == 'T' || state == 'Z' || state == 'X' || state == GONE : state != 'T';
  }

  /** Whether the process is in the stopped state ({@code T} in {@code /proc/<pid>/stat}). */
  static boolean isStopped(long pid) {
    return state(pid) == 'T';
  }

  /** The state letter of {@code /proc/<pid>/stat}, or {@link #GONE} when the process no longer exists. */
  private static char state(long pid) {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
    } catch (NoSuchFileException gone) {
      return GONE;
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().contains("No such process")) {
        return GONE;
      }
      throw new IllegalStateException("Could not read the state of process " + pid + ": " + e, e);
    }
    // "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last ')'
    int close = stat.lastIndexOf(')');
    if (close < 0 || close + 2 >= stat.length()) {
      throw new IllegalStateException("Unexpected /proc/" + pid + "/stat: " + stat);
    }
    return stat.charAt(close + 2);
  }

  /**
   * Signals each pid. A process that exited meanwhile (a backend whose client left) is not an
   * error; any other complaint of {@code kill} (no permission) is.
   */
  private static void signal(String signal, List<Long> pids, String serverName) {
    List<String> command = new ArrayList<>(List.of("sh", "-c", "for p; do kill -s " + signal + " \"$p\"; done", "sh"));
    pids.forEach(pid -> command.add(Long.toString(pid)));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(serverName + ": sending SIG" + signal + " did not finish within 30 s");
      }
      List<String> complaints = out.lines().filter(line -> !line.isBlank() && !line.contains("No such process")).toList();
      if (!complaints.isEmpty()) {
        throw new IllegalStateException(serverName + ": could not send SIG" + signal + " to " + pids + ": "
            + String.join("; ", complaints));
      }
    } catch (IOException e) {
      throw new IllegalStateException(serverName + ": could not send SIG" + signal + " to " + pids + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(serverName + ": interrupted while sending SIG" + signal, e);
    }
  }
}
