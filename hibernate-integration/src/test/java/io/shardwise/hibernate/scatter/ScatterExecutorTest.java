package io.shardwise.hibernate.scatter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.scatter.internal.ScatterExecutor;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The fan-out itself, without a database: the part the calling thread runs, and what it waits for. */
class ScatterExecutorTest {

  @Test
  void aPartTheCallerRanUpToTheDeadlineDoesNotLoseTheAnswersThatCameMeanwhile() throws Exception {
    try (ScatterExecutor executor = new ScatterExecutor("test", 2, 8)) {
      CountDownLatch othersAnswered = new CountDownLatch(1);
      Thread caller = Thread.currentThread();
      Thread[] ranOn = new Thread[1];
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
      Map<String, Callable<String>> tasks = new LinkedHashMap<>();
      tasks.put("s0", () -> {
        ranOn[0] = Thread.currentThread();
        // the caller's own part: it returns only once the other part answered and the deadline has passed
        assertTrue(othersAnswered.await(10, TimeUnit.SECONDS), "the other part ran");
        while (System.nanoTime() - deadline < 0) {
          java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        return "late but mine";
      });
      tasks.put("s1", () -> {
        othersAnswered.countDown();
        return "on time";
      });

      ScatterExecutor.Outcome<String> outcome = executor.run(tasks, "s0", deadline, true);

      assertSame(caller, ranOn[0], "s0's part ran on the calling thread");
      assertEquals(Map.of("s0", "late but mine", "s1", "on time"), outcome.results(),
          "s1 answered while the caller ran s0: it is kept, not reported late; " + outcome.missing());
      assertEquals(Map.of(), outcome.missing());
    }
  }
}
