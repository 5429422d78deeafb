package io.shardwise.hibernate.scatter.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bounded thread pool that fans scatter-gather queries out to the shards, one per runtime.
 *
 * <p>A fixed number of daemon threads and a bounded queue: when both are full a new query is
 * refused at once rather than queued without bound. The caller waits on the shard tasks until
 * the deadline, then gives up on the late ones; their threads are interrupted, and the server
 * cancels their statements itself (each shard's statement runs under a {@code statement_timeout}
 * equal to the time left), so a late shard holds a thread and a connection only until the deadline.
 */
public final class ScatterExecutor implements AutoCloseable {
  private final String unitName;
  private final ThreadPoolExecutor pool;

  /** What a fan-out gave: results of the shards that answered, and why the others did not. */
  public record Outcome<R>(Map<String, R> results, Map<String, String> missing, Map<String, Throwable> errors,
      Map<String, Duration> times) {}

  public ScatterExecutor(String unitName, int threads, int queueCapacity) {
    this.unitName = unitName;
    AtomicInteger n = new AtomicInteger();
    this.pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queueCapacity),
        r -> {
          Thread t = new Thread(r, "shardwise-scatter-" + unitName + "-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
  }

  /**
   * Runs every task in parallel and waits for them until {@code deadlineNanos} (a
   * {@link System#nanoTime()} value).
   *
   * @param failFast stop waiting (and cancel the rest) at the first failure
   */
  public <R> Outcome<R> run(Map<String, Callable<R>> tasks, long deadlineNanos, boolean failFast) {
    return run(tasks, null, deadlineNanos, failFast);
  }

  /**
   * The same, except that the task of {@code callerShard} (when not null) runs on the calling
   * thread once the others are submitted: the part that joins the caller's session and transaction,
   * which belong to that thread, or any part the caller can run as bounded by the deadline as an
   * executor thread would (the caller would only wait otherwise). Parts that answered while it ran
   * are taken even when it ran up to the deadline.
   */
  public <R> Outcome<R> run(Map<String, Callable<R>> tasks, String callerShard, long deadlineNanos, boolean failFast) {
    long start = System.nanoTime();
    ExecutorCompletionService<Map.Entry<String, R>> done = new ExecutorCompletionService<>(pool);
    Map<Future<Map.Entry<String, R>>, String> running = new LinkedHashMap<>();
    Map<String, R> results = new LinkedHashMap<>();
    Map<String, String> missing = new LinkedHashMap<>();
    Map<String, Throwable> errors = new LinkedHashMap<>();
    Map<String, Duration> times = new LinkedHashMap<>();
    try {
      for (Map.Entry<String, Callable<R>> task : tasks.entrySet()) {
        String shard = task.getKey();
        Callable<R> work = task.getValue();
        if (!shard.equals(callerShard)) {
          running.put(done.submit(() -> Map.entry(shard, work.call())), shard);
        }
      }
    } catch (RejectedExecutionException e) {
      running.keySet().forEach(f -> f.cancel(true));
      throw new io.shardwise.hibernate.scatter.ScatterGatherException("The scatter-gather executor of persistence unit '"
          + unitName + "' is saturated (" + pool.getMaximumPoolSize() + " threads busy, " + pool.getQueue().size()
          + " shard tasks queued); raise " + SCATTER_THREADS + " or run fewer scatter queries at once",
          Map.of(), e);
    }
    Callable<R> callerTask = callerShard == null ? null : tasks.get(callerShard);
    if (callerTask != null) {
      try {
        results.put(callerShard, callerTask.call());
      } catch (Exception e) {
        errors.put(callerShard, e);
        missing.put(callerShard, failureOf(e, start));
      }
      times.put(callerShard, Duration.ofNanos(System.nanoTime() - start));
    }
    while (!running.isEmpty() && !(failFast && !errors.isEmpty())) {
      long left = deadlineNanos - System.nanoTime();
      Future<Map.Entry<String, R>> f;
      try {
        // past the deadline (the caller's own part may have used it up), take what has already answered
        f = left > 0 ? done.poll(left, TimeUnit.NANOSECONDS) : done.poll();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        f = null;
      }
      if (f == null) {
        break;
      }
      String shard = running.remove(f);
      times.put(shard, Duration.ofNanos(System.nanoTime() - start));
      try {
        Map.Entry<String, R> result = f.get();
        results.put(shard, result.getValue());
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        errors.put(shard, cause);
        missing.put(shard, failureOf(cause, start));
        if (failFast) {
          break;
        }
      } catch (InterruptedException | CancellationException e) {
        missing.put(shard, "interrupted");
      }
    }
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    for (Map.Entry<Future<Map.Entry<String, R>>, String> late : running.entrySet()) {
      late.getKey().cancel(true);
      missing.putIfAbsent(late.getValue(), errors.isEmpty() || !failFast
          ? "no answer within the deadline (waited " + waited + " ms); its statement is cancelled by statement_timeout"
          : "abandoned after another shard failed");
    }
    return new Outcome<>(results, missing, errors, times);
  }

  /** Why a shard's part is missing from the result. */
  private static String failureOf(Throwable cause, long start) {
    // the deadline is enforced twice: here, and by the shard's statement_timeout; whichever fires first, it is the deadline
    return cancelledByStatementTimeout(cause)
        ? "no answer within the deadline (the server cancelled its statement after "
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms: " + describe(cause) + ")"
        : "failed: " + describe(cause);
  }

  /** The setting that sizes the pool; default twice the shard count, at least 4, at most 64. */
  public static final String SCATTER_THREADS = io.shardwise.hibernate.ShardwiseSettings.SCATTER_THREADS;

  /** A pool of {@code threads} (checked and sized by the configuration), with a queue of 16 shard tasks per thread. */
  public static ScatterExecutor forUnit(String unitName, int threads) {
    return new ScatterExecutor(unitName, threads, 16 * threads);
  }

  /** SQLSTATE 57014 (query_canceled): the shard's statement_timeout, which the scatter sets to its deadline. */
  private static boolean cancelledByStatementTimeout(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof java.sql.SQLException sql && "57014".equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  private static String describe(Throwable t) {
    StringBuilder sb = new StringBuilder(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != t) {
      sb.append(" (caused by ").append(root.getClass().getSimpleName()).append(": ").append(root.getMessage()).append(')');
    }
    return sb.toString();
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
