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
 * Where scatter-gather queries fan out to the shards, one per runtime; its threads do not grow with
 * the shard count.
 *
 * <p>On JDK 21 and later every shard part runs on a virtual thread of its own (looked up at run
 * time: Shardwise compiles for 17): a part parked on a shard's socket holds no platform thread, so
 * a scatter over 128 shards runs on the JVM's few carrier threads. At most {@code threads} ×
 * 17 parts are in flight at once (the platform pool's threads and queue); past that a query is
 * refused at once. On JDK 17 the parts run on a fixed number of daemon platform threads with a
 * bounded queue, refused the same way when both are full.
 *
 * <p>The caller waits on the shard tasks until the deadline, then gives up on the late ones; their
 * platform threads are interrupted (virtual ones are not: see {@link #interruptsLateParts}), and
 * the server cancels their statements itself (each part's statement
 * runs under a query timeout or {@code statement_timeout} equal to the time left), so a late shard
 * holds a thread and a connection only until the deadline. A shard's bulkhead and pool bound what
 * any one shard can take, whichever thread runs its part.
 */
public final class ScatterExecutor implements AutoCloseable {
  private static final ThreadFactoryMaker VIRTUAL_THREADS = findVirtualThreads();

  private final String unitName;
  /** The platform pool (JDK 17, or when asked for), else null. */
  private final ThreadPoolExecutor pool;
  /** With virtual threads: one virtual thread per part, started under {@link #inFlight}; else the pool. */
  private final java.util.concurrent.Executor executor;
  /** With virtual threads: the parts that may be in flight at once; null with the platform pool. */
  private final java.util.concurrent.Semaphore inFlight;
  private final int inFlightLimit;

  /** What a fan-out gave: results of the shards that answered, and why the others did not. */
  public record Outcome<R>(Map<String, R> results, Map<String, String> missing, Map<String, Throwable> errors,
      Map<String, Duration> times) {}

  /** A platform pool of {@code threads} threads and a queue of {@code queueCapacity} parts. */
  public ScatterExecutor(String unitName, int threads, int queueCapacity) {
    this(unitName, threads, queueCapacity, false);
  }

  private ScatterExecutor(String unitName, int threads, int queueCapacity, boolean virtual) {
    this.unitName = unitName;
    this.inFlightLimit = threads + queueCapacity;
    String prefix = "shardwise-scatter-" + unitName + "-";
    if (virtual) {
      java.util.concurrent.ThreadFactory threadsOfParts = VIRTUAL_THREADS.make(prefix);
      java.util.concurrent.Semaphore permits = new java.util.concurrent.Semaphore(inFlightLimit);
      this.pool = null;
      this.inFlight = permits;
      this.executor = part -> {
        Thread t = threadsOfParts.newThread(() -> {
          try {
            part.run();
          } finally {
            permits.release();
          }
        });
        t.start();
      };
      return;
    }
    AtomicInteger n = new AtomicInteger();
    this.pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queueCapacity),
        r -> {
          Thread t = new Thread(r, prefix + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    pool.allowCoreThreadTimeOut(true);
    this.executor = pool;
    this.inFlight = null;
  }

  /**
   * Whether a late part's thread is interrupted: a platform thread's, so that a wait for a pool
   * checkout ends; never a virtual thread's, since interrupting a virtual thread blocked on a
   * socket closes the socket, and the driver's cancel request for the server's statement (sent at
   * the deadline) would then never be sent: the statement would run on, unseen, to its end.
   */
  private boolean interruptsLateParts() {
    return pool != null;
  }

  /** Whether parts run on virtual threads (JDK 21+). */
  public boolean runsOnVirtualThreads() {
    return pool == null;
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
    ExecutorCompletionService<Map.Entry<String, R>> done = new ExecutorCompletionService<>(executor);
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
          if (inFlight != null && !inFlight.tryAcquire()) {
            throw new RejectedExecutionException("no permit");
          }
          running.put(done.submit(() -> Map.entry(shard, work.call())), shard);
        }
      }
    } catch (RejectedExecutionException e) {
      running.keySet().forEach(f -> f.cancel(interruptsLateParts()));
      String state = pool == null ? inFlightLimit + " shard parts in flight on virtual threads"
          : pool.getMaximumPoolSize() + " threads busy, " + pool.getQueue().size() + " shard tasks queued";
      throw new io.shardwise.hibernate.scatter.ScatterGatherException("The scatter-gather executor of persistence unit '"
          + unitName + "' is saturated (" + state + "); raise " + SCATTER_THREADS
          + " or run fewer scatter queries at once", Map.of(), e);
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
      late.getKey().cancel(interruptsLateParts());
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

  /** The setting that sizes the pool; default twice the shard count, at least 4, at most 16. */
  public static final String SCATTER_THREADS = io.shardwise.hibernate.ShardwiseSettings.SCATTER_THREADS;

  /**
   * The runtime's executor: virtual threads where the JDK has them, else a pool of {@code threads}
   * (checked and sized by the configuration); either way 16 queued parts per thread.
   */
  public static ScatterExecutor forUnit(String unitName, int threads) {
    return new ScatterExecutor(unitName, threads, 16 * threads, VIRTUAL_THREADS != null);
  }

  /** Makes a factory of named virtual threads; null where the JDK has none (before 21). */
  @FunctionalInterface
  interface ThreadFactoryMaker {
    java.util.concurrent.ThreadFactory make(String namePrefix);
  }

  /**
   * {@code Thread.ofVirtual().name(prefix, 1).factory()}, found by reflection once, or null before
   * JDK 21 (on 19 and 20 virtual threads are a preview, which a library must not switch on).
   */
  private static ThreadFactoryMaker findVirtualThreads() {
    if (Runtime.version().feature() < 21) {
      return null;
    }
    try {
      java.lang.reflect.Method ofVirtual = Thread.class.getMethod("ofVirtual");
      Class<?> builder = Class.forName("java.lang.Thread$Builder");
      java.lang.reflect.Method name = builder.getMethod("name", String.class, long.class);
      java.lang.reflect.Method factory = builder.getMethod("factory");
      ThreadFactoryMaker maker = prefix -> {
        try {
          return (java.util.concurrent.ThreadFactory) factory.invoke(name.invoke(ofVirtual.invoke(null), prefix, 1L));
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("virtual threads were found but cannot be made", e);
        }
      };
      maker.make("probe-");
      return maker;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
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
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
