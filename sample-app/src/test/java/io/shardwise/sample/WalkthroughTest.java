package io.shardwise.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Live progress lines: rewritten in place on a terminal, a readable line each off one (logs, CI). */
class WalkthroughTest {

  @Test
  void offATerminalLiveLinesAreLinesOfTheirOwnWithTheFirstAndLastKept() {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    Walkthrough walk = new Walkthrough(new PrintStream(printed, true, StandardCharsets.UTF_8), false);
    for (int i = 0; i <= 1_000; i++) {
      walk.live("copied " + i + " rows");
    }
    walk.say("done");
    String out = printed.toString(StandardCharsets.UTF_8);
    assertFalse(out.contains("\r"), out);
    assertTrue(out.startsWith("   copied 0 rows\n"), out);
    assertTrue(out.contains("   copied 1000 rows\n   done\n"), out);
    assertTrue(out.lines().count() < 1_000 / 2, "throttled, not a line per update: " + out.lines().count());
  }

  @Test
  void onATerminalALiveLineIsRewrittenInPlace() {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    Walkthrough walk = new Walkthrough(new PrintStream(printed, true, StandardCharsets.UTF_8), true);
    walk.live("copied 10 rows");
    walk.live("copied 2000 rows");
    walk.say("done");
    assertEquals("\r   copied 10 rows\r   copied 2000 rows\n   done\n", printed.toString(StandardCharsets.UTF_8));
  }
}
