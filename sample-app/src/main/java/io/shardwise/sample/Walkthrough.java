package io.shardwise.sample;

import java.io.PrintStream;

/** Numbered, indented console output for the guided walkthrough. */
final class Walkthrough {
  /** How often a live line is printed when the output is not a terminal (a log, a pipe). */
  private static final long LOGGED_LIVE_INTERVAL_NANOS = 2_000_000_000L;

  private final PrintStream out;
  private final boolean terminal;
  private int step;
  private int liveWidth = -1;
  private String pendingLive;
  private long liveLoggedAt;

  /** Output to a log or a pipe: live lines become a line every two seconds, no {@code \r}. */
  Walkthrough(PrintStream out) {
    this(out, false);
  }

  /** {@code terminal}: live lines are rewritten in place ({@code System.console() != null}). */
  Walkthrough(PrintStream out, boolean terminal) {
    this.out = out;
    this.terminal = terminal;
  }

  void title(String title) {
    out.println();
    out.println(title);
    out.println("=".repeat(title.length()));
  }

  void step(String what) {
    endLive();
    out.println();
    out.printf("%d. %s%n", ++step, what);
  }

  void say(String format, Object... args) {
    endLive();
    out.println("   " + String.format(format, args));
  }

  /**
   * A live progress line until the next {@link #say}: on a terminal rewritten in place ({@code \r});
   * otherwise printed as a line of its own at most every two seconds, and the last one at the end.
   */
  void live(String line) {
    String text = "   " + line;
    if (!terminal) {
      long now = System.nanoTime();
      if (liveLoggedAt != 0 && now - liveLoggedAt < LOGGED_LIVE_INTERVAL_NANOS) {
        pendingLive = text;
        return;
      }
      out.println(text);
      liveLoggedAt = now;
      pendingLive = null;
      return;
    }
    out.print("\r" + text + " ".repeat(Math.max(0, liveWidth - text.length())));
    out.flush();
    liveWidth = text.length();
  }

  /** Ends a live line, if one is showing (or, off a terminal, prints the last one not printed yet). */
  void endLive() {
    if (pendingLive != null) {
      out.println(pendingLive);
      pendingLive = null;
    }
    liveLoggedAt = 0;
    if (liveWidth >= 0) {
      out.println();
      liveWidth = -1;
    }
  }
}
