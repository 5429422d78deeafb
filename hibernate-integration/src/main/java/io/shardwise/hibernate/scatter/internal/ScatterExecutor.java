package io.shardwise.hibernate.scatter.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
    Gathering gathering = new Gathering(Thread.currentThread(), failFast);
    List<Part<R>> parts = new ArrayList<>(tasks.size());
    Map<String, R> results = new LinkedHashMap<>();
    Map<String, String> missing = new LinkedHashMap<>();
    Map<String, Throwable> errors = new LinkedHashMap<>();
    Map<String, Duration> times = new LinkedHashMap<>();
    try {
      for (Map.Entry<String, Callable<R>> task : tasks.entrySet()) {
        if (!task.getKey().equals(callerShard)) {
          if (inFlight != null && !inFlight.tryAcquire()) {
            throw new RejectedExecutionException("no permit");
          }
          Part<R> part = new Part<>(task.getKey(), task.getValue(), gathering);
          gathering.pending.incrementAndGet();
          try {
            executor.execute(part.future);
          } catch (RejectedExecutionException e) {
            gathering.pending.decrementAndGet();
            throw e;
          }
          parts.add(part);
        }
      }
    } catch (RejectedExecutionException e) {
      parts.forEach(part -> part.future.cancel(interruptsLateParts()));
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
    if (!(failFast && !errors.isEmpty())) {
      gathering.awaitUntil(deadlineNanos);
    }
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    boolean interrupted = Thread.currentThread().isInterrupted();
    boolean failed = !errors.isEmpty();
    List<Part<R>> late = new ArrayList<>();
    for (Part<R> part : parts) {
      long finishedAt = part.finishedAt; // read once: a part may finish while the outcome is put together
      if (finishedAt == 0) {
        late.add(part);
      } else if (part.failure == null) {
        results.put(part.shard, part.result);
        times.put(part.shard, Duration.ofNanos(finishedAt - start));
      } else {
        errors.put(part.shard, part.failure);
        missing.put(part.shard, failureOf(part.failure, start));
        times.put(part.shard, Duration.ofNanos(finishedAt - start));
        failed = true;
      }
    }
    for (Part<R> part : late) {
      part.future.cancel(interruptsLateParts());
      missing.put(part.shard, failed && failFast ? "abandoned after another shard failed"
          : interrupted ? "the calling thread was interrupted after " + waited + " ms, before this shard answered"
          : "no answer within the deadline (waited " + waited + " ms); its statement is cancelled by statement_timeout");
    }
    return new Outcome<>(results, missing, errors, times);
  }

  /**
   * What the caller waits on: the parts not yet finished. The caller is woken once, when the last
   * part finishes (or, failing fast, the first one fails), not once per part.
   */
  private static final class Gathering {
    final AtomicInteger pending = new AtomicInteger();
    final Thread caller;
    final boolean failFast;
    volatile boolean failed;

    Gathering(Thread caller, boolean failFast) {
      this.caller = caller;
      this.failFast = failFast;
    }

    void finished(boolean failure) {
      if (failure) {
        failed = true;
      }
      if (pending.decrementAndGet() == 0 || failure && failFast) {
        LockSupport.unpark(caller);
      }
    }

    /** Until every part finished, one failed when failing fast, the deadline passed or the caller was interrupted. */
    void awaitUntil(long deadlineNanos) {
      while (pending.get() > 0 && !(failFast && failed)) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0 || Thread.currentThread().isInterrupted()) {
          return;
        }
        LockSupport.parkNanos(this, left);
      }
    }
  }

  /** One shard's part on the executor; its outcome is published by {@link Gathering#finished}. */
  private static final class Part<R> {
    final String shard;
    final FutureTask<Void> future;
    R result;
    Throwable failure;
    /** {@link System#nanoTime()} when the part finished, 0 until then; written last, before the count. */
    volatile long finishedAt;

    Part(String shard, Callable<R> work, Gathering gathering) {
      this.shard = shard;
      this.future = new FutureTask<>(() -> {
        try {
          result = work.call();
        } catch (Throwable t) {
          failure = t;
        }
        long now = System.nanoTime();
        finishedAt = now == 0 ? 1 : now;
        gathering.finished(failure != null);
        if (failure instanceof Error error) {
          throw error;
        }
      }, null);
    }
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
