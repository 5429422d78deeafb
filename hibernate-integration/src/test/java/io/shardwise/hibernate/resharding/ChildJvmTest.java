package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ChildJvm}: a chatty child is not stalled by its output, and a stuck one fails the test in bounded time. */
class ChildJvmTest {

  /** Prints far more than a pipe buffer holds, then exits or sleeps for an hour. */
  public static final class Chatty {
    public static void main(String[] args) throws InterruptedException {
      for (int i = 0; i < 20_000; i++) {
        System.out.println("line " + i + " of a child that talks a lot ........................................");
      }
      if (args.length > 0 && args[0].equals("hang")) {
        Thread.sleep(3_600_000);
      }
      System.exit(7);
    }
  }

  @Test
  void aChattyChildRunsToItsEnd() throws Exception {
    ChildJvm.Result r = ChildJvm.run(Duration.ofSeconds(60), List.of(), Chatty.class.getName(), List.of());
    assertEquals(7, r.exitCode());
    assertTrue(r.output().contains("line 19999 of"), "the whole output is kept");
  }

  @Test
  void aStuckChildIsKilledAtTheLimitAndFailsTheTest() {
    long t0 = System.nanoTime();
    AssertionError e = assertThrows(AssertionError.class,
        () -> ChildJvm.run(Duration.ofSeconds(5), List.of(), Chatty.class.getName(), List.of("hang")));
    long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
    assertTrue(seconds < 20, "returned after " + seconds + " s");
    assertTrue(e.getMessage().contains("did not exit within 5 s and was killed (alive now: false)"), e.getMessage());
    assertTrue(e.getMessage().contains("line 19999 of"), "shows the last output: " + e.getMessage());
  }
}
