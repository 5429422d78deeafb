package io.shardwise.sample;

import java.io.PrintStream;

/** Numbered, indented console output for the guided walkthrough. */
final class Walkthrough {
  private final PrintStream out;
  private int step;
  private int liveWidth = -1;

  Walkthrough(PrintStream out) {
    this.out = out;
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

  /** A line rewritten in place ({@code \r}) until the next {@link #say}: a live progress bar. */
  void live(String line) {
    String text = "   " + line;
    out.print("\r" + text + " ".repeat(Math.max(0, liveWidth - text.length())));
    out.flush();
    liveWidth = text.length();
  }

  /** Ends a live line, if one is showing. */
  void endLive() {
    if (liveWidth >= 0) {
      out.println();
      liveWidth = -1;
    }
  }
}
