package io.shardwise.sample;

import java.io.PrintStream;

/** Numbered, indented console output for the guided walkthrough. */
final class Walkthrough {
  private final PrintStream out;
  private int step;

  Walkthrough(PrintStream out) {
    this.out = out;
  }

  void title(String title) {
    out.println();
    out.println(title);
    out.println("=".repeat(title.length()));
  }

  void step(String what) {
    out.println();
    out.printf("%d. %s%n", ++step, what);
  }

  void say(String format, Object... args) {
    out.println("   " + String.format(format, args));
  }
}
