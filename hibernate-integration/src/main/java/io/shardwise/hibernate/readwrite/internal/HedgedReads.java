package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.internal.jdbc.ShardConnection;
import java.sql.Connection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * Hedged replica reads, at the level of a read-only unit of work.
 *
 * <h2>How a hedged unit runs</h2>
 *
 * The first attempt runs on the caller's thread, exactly as an unhedged unit would. When its
 * session gets a replica connection ({@link #lent}), a timer is set to that replica's hedge delay
 * ({@link ReadLatency}); a session served by the primary sets none (there is nowhere better to go).
 * If the first attempt has not ended when the timer fires, a second attempt of the same unit starts
 * on a hedge thread, in a new session that avoids the first one's replica ({@link ReadRetry}) and
 * carries the same read-your-writes requirement: another replica that has replayed the scope's pin,
 * else the primary — never a node behind the pin. The first attempt to return wins. The loser's
 * statement is cancelled on its server and its connection kept ({@link CancelledLoser}): a live but
 * slow server stops working on it at once, the loser's session rolls back, and the connection goes
 * back to its pool healthy; neither the cancel nor the loser's failure reaches anyone, and the
 * server's breaker counts neither. Only a server that does not acknowledge the cancel within
 * {@value CancelledLoser#ACK_BOUND_MS} ms (frozen), or whose breaker is not closed, has the loser's
 * connection aborted ({@link ShardConnection#abandon}), which releases a caller blocked on it.
 *
 * <h2>A budget</h2>
 *
 * A hedge adds load exactly when a server is slow, and on a saturated machine the extra load makes
 * every unit slower, which fires more hedges (measured: without a budget, a healthy but loaded shard
 * ran up to a third of its units twice, and slower). So hedges draw on a token bucket: every unit
 * that starts on a replica earns {@code (100 - percentile) %} of a token, a hedge costs one, and the
 * bucket holds at most {@value #BURST} tokens. With the default p95, hedges never exceed 5 % of the
 * units over time, plus a burst of {@value #BURST} for a replica that froze under several units at
 * once. A unit that finds the bucket empty is not hedged.
 *
 * <h2>Why the unit of work and not the statement</h2>
 *
 * A Hibernate session holds one connection, its transaction's snapshot and its persistence context;
 * a statement re-sent to another server mid-session would mix snapshots of two servers in one unit.
 * A whole read-only unit run again is self-contained: it reads one snapshot of one server and
 * returns a value. The price: the callback may run twice, on two threads at once; it wrote nothing
 * to the shard (a read-only session refuses writes and row locks), but anything else it does, it does
 * twice.
 *
 * <h2>Concurrency</h2>
 *
 * A race has three states: the first attempt alone, hedging (the timer launched the second), and
 * settled without a hedge (the first ended before the timer). Both moves out of the first state are
 * compare-and-set, so a timer that fires as the first attempt ends either launches the second
 * attempt, which the first then beats, or launches nothing. The winner is decided by one more
 * compare-and-set. A leg's connection is stopped only while the leg still holds it: the leg's
 * monitor orders {@link Leg#lose} against {@link #returned}, so a connection already back in its pool
 * (and maybe lent to someone else) is never touched; and a connection whose cancel is in flight goes
 * back only once the cancel is acknowledged, else aborted ({@link CancelledLoser}).
 */
public final class HedgedReads implements AutoCloseable {
  private static final ThreadLocal<Leg> CURRENT = new ThreadLocal<>();
  private static final int MAX_HEDGE_THREADS = 64;
  /** Cancel requests in flight at most; a loser finding none free is aborted (a frozen server holds each for seconds). */
  private static final int CANCEL_THREADS = 16;
  private static final String LOST = "another node answered this hedged read first";
  private static final int BURST = 10;
  private static final long MILLI = 1000;

  private final ShardwiseConfig.ReadHedge settings;
  private final String unitName;
  private final LongAdder fired = new LongAdder();
  private final LongAdder hedgeWon = new LongAdder();
  /** The hedge budget, in thousandths of a hedge. */
  private final java.util.concurrent.atomic.AtomicLong tokens = new java.util.concurrent.atomic.AtomicLong(BURST * MILLI);
  private final long earnedPerUnit;
  private ScheduledThreadPoolExecutor timer;
  private ThreadPoolExecutor hedgeThreads;
  private ThreadPoolExecutor cancels;
  private boolean closed;

  HedgedReads(ShardwiseConfig config) {
    this.settings = config.readHedge();
    this.unitName = config.unitName();
    this.earnedPerUnit = (100 - settings.percentile()) * MILLI / 100;
  }

  private void earn() {
    long now;
    do {
      now = tokens.get();
      if (now >= BURST * MILLI) {
        return;
      }
    } while (!tokens.compareAndSet(now, Math.min(BURST * MILLI, now + earnedPerUnit)));
  }

  private boolean spend() {
    long now;
    do {
      now = tokens.get();
      if (now < MILLI) {
        return false;
      }
    } while (!tokens.compareAndSet(now, now - MILLI));
    return true;
  }

  /** Whether read-only routes hedge unless they say otherwise ({@code shardwise.read.hedge.enabled}). */
  public boolean enabledByDefault() {
    return settings.enabled();
  }

  /** Second attempts started, and second attempts that answered first, since the session factory started. */
  public long[] counts() {
    return new long[] {fired.sum(), hedgeWon.sum()};
  }

  /**
   * Runs one hedged read-only unit of work.
   *
   * @param unit one attempt of the unit, given its deadline in ms (0 for none); safe to run on two threads at once
   * @param unhedgedFailure what to do when the first attempt fails before any second attempt started
   *     (the read path's ordinary retry off a failed replica): returns the answer or throws
   */
  public <R> R run(LongFunction<R> unit, long deadlineMs, Function<RuntimeException, R> unhedgedFailure) {
    Race<R> race = new Race<>(unit, deadlineMs);
    R result;
    CURRENT.set(race.first);
    try {
      result = unit.apply(deadlineMs);
    } catch (RuntimeException failure) {
      CURRENT.remove();
      return race.firstFailed(failure, unhedgedFailure);
    } catch (Error e) {
      race.firstThrew();
      throw e;
    } finally {
      CURRENT.remove();
    }
    return race.firstReturned(result);
  }

  /** A read-only session on this thread got {@code connection} ({@code replica}, or null for the primary). */
  static void lent(Connection connection, ReplicaNode replica) {
    Leg leg = CURRENT.get();
    if (leg != null) {
      leg.lent(connection, replica);
    }
  }

  /** The read-only session on this thread gives {@code connection} back. */
  static void returned(Connection connection) {
    Leg leg = CURRENT.get();
    if (leg != null) {
      leg.returned(connection);
    }
  }

  // --- one hedged unit ---------------------------------------------------------------------------

  private static final int FIRST_ALONE = 0;
  private static final int HEDGING = 1;
  private static final int SETTLED = 2;

  /** Thrown into the second attempt's outcome when no thread could run it. */
  private static final class NotRun extends RuntimeException {
    NotRun() {
      super(null, null, false, false);
    }
  }

  private final class Race<R> {
    final LongFunction<R> unit;
    final long deadlineMs;
    final long startedNanos = System.nanoTime();
    final Leg first = new Leg(this);
    final Leg second = new Leg(this);
    final AtomicInteger state = new AtomicInteger(FIRST_ALONE);
    final AtomicReference<Leg> winner = new AtomicReference<>();
    final CompletableFuture<R> secondOutcome = new CompletableFuture<>();
    volatile ScheduledFuture<?> timerTask;

    Race(LongFunction<R> unit, long deadlineMs) {
      this.unit = unit;
      this.deadlineMs = deadlineMs;
    }

    /** The first attempt got a replica: hedge after that replica's delay. */
    void firstOnReplica(ReplicaNode replica) {
      earn();
      long delay = replica.latency.delayNanos(settings);
      try {
        timerTask = timer().schedule(() -> launchSecond(replica), delay, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closing) {
        // the session factory is closing: no hedge
      }
    }

    void launchSecond(ReplicaNode avoided) {
      long leftMs = deadlineMs == 0 ? 0
          : deadlineMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
      if ((deadlineMs != 0 && leftMs <= 0) || state.get() != FIRST_ALONE || !spend()) {
        return;
      }
      if (!state.compareAndSet(FIRST_ALONE, HEDGING)) {
        tokens.addAndGet(MILLI); // the first attempt ended meanwhile: the hedge was not needed
        return;
      }
      try {
        hedgeThreads().execute(() -> runSecond(avoided, leftMs));
        fired.increment();
      } catch (RejectedExecutionException noThread) {
        secondOutcome.completeExceptionally(new NotRun());
      }
    }

    void runSecond(ReplicaNode avoided, long leftMs) {
      CURRENT.set(second);
      ReadRetry.avoid("replica " + JdbcUrls.hostPort(avoided.url));
      try {
        R result = unit.apply(leftMs);
        second.ended(true);
        if (winner.compareAndSet(null, second)) {
          hedgeWon.increment();
          first.lose();
        }
        secondOutcome.complete(result);
      } catch (RuntimeException | Error e) {
        second.ended(false);
        secondOutcome.completeExceptionally(e);
      } finally {
        ReadRetry.done();
        CURRENT.remove();
      }
    }

    R firstReturned(R result) {
      first.ended(true);
      if (state.compareAndSet(FIRST_ALONE, SETTLED)) {
        cancelTimer();
        return result;
      }
      if (winner.compareAndSet(null, first)) {
        second.lose();
        return result;
      }
      return secondOutcome.join();
    }

    void firstThrew() {
      first.ended(false);
      if (!state.compareAndSet(FIRST_ALONE, SETTLED)) {
        winner.compareAndSet(null, first);
        second.lose();
      }
      cancelTimer();
    }

    R firstFailed(RuntimeException failure, Function<RuntimeException, R> unhedgedFailure) {
      first.ended(false);
      if (state.compareAndSet(FIRST_ALONE, SETTLED)) {
        cancelTimer();
        return unhedgedFailure.apply(failure);
      }
      if (winner.get() == second) {
        return secondOutcome.join(); // our own abandonment ended the first attempt
      }
      if (!(failure instanceof ShardUnavailableException)) {
        // an answer (the work's own exception, an SQL error): the read is over, whatever the second says
        if (winner.compareAndSet(null, first)) {
          second.lose();
          throw failure;
        }
        return secondOutcome.join();
      }
      try {
        return secondOutcome.get();
      } catch (ExecutionException e) {
        if (e.getCause() instanceof NotRun) {
          return unhedgedFailure.apply(failure);
        }
        RuntimeException second = e.getCause() instanceof RuntimeException re ? re : new RuntimeException(e.getCause());
        second.addSuppressed(failure);
        throw second;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        second.lose();
        throw failure;
      }
    }

    private void cancelTimer() {
      ScheduledFuture<?> task = timerTask;
      if (task != null) {
        task.cancel(false);
      }
    }
  }

  /** One attempt of a race: the connection its session holds, for the other attempt to stop. */
  private final class Leg {
    final Race<?> race;
    private Connection connection;
    private ReplicaNode replica;
    private long lentAt;
    private boolean lost;
    /** The connection this leg's loss withdrew last; null while it has not lost. */
    private Connection stopped;
    /** The cancel in flight for {@link #connection}, which must settle before the connection goes back. */
    private CancelledLoser cancelling;

    Leg(Race<?> race) {
      this.race = race;
    }

    /**
     * A session outside a transaction takes a connection per statement (Hibernate releases it after
     * each): the timer is set, and the unit's time counted, from the first.
     */
    void lent(Connection c, ReplicaNode node) {
      boolean firstConnection;
      synchronized (this) {
        connection = c;
        firstConnection = lentAt == 0;
        if (firstConnection) {
          replica = node;
          lentAt = System.nanoTime();
        }
        if (lost) {
          stopped = c;
          CancelledLoser.withdrawIdle(c, LOST);
          return;
        }
      }
      if (firstConnection && this == race.first && node != null) {
        race.firstOnReplica(node);
      }
    }

    void returned(Connection c) {
      CancelledLoser inFlight;
      synchronized (this) {
        if (c != connection) {
          return;
        }
        connection = null;
        inFlight = cancelling;
        cancelling = null;
      }
      if (inFlight != null) {
        inFlight.beforeReturn();
      }
    }

    /** The attempt ended; a successful one on a replica that was not stopped teaches that replica's latency. */
    void ended(boolean succeeded) {
      ReplicaNode node;
      long took;
      synchronized (this) {
        node = stopped != null || !succeeded ? null : replica;
        took = System.nanoTime() - lentAt;
      }
      if (node != null) {
        node.latency.record(took);
      }
    }

    /**
     * The other attempt won: if this one still holds a connection, its statement is cancelled on the
     * server and the connection kept ({@link CancelledLoser}); aborted when the server does not answer.
     */
    void lose() {
      CancelledLoser loser;
      synchronized (this) {
        lost = true;
        if (connection == null || connection == stopped) {
          return;
        }
        stopped = connection;
        loser = CancelledLoser.withdraw(connection, LOST);
        cancelling = loser;
      }
      if (loser != null) {
        try {
          loser.send(cancels(), timer());
        } catch (RejectedExecutionException closing) {
          loser.abortUnlessAcknowledged(); // the session factory is closing: nothing would send the cancel
        }
      }
    }
  }

  // --- threads, started on first use ------------------------------------------------------------

  private synchronized ScheduledThreadPoolExecutor timer() {
    requireOpen();
    if (timer == null) {
      timer = new ScheduledThreadPoolExecutor(1, daemons("hedge-timer"));
      timer.setRemoveOnCancelPolicy(true);
    }
    return timer;
  }

  private synchronized ThreadPoolExecutor hedgeThreads() {
    requireOpen();
    if (hedgeThreads == null) {
      hedgeThreads = new ThreadPoolExecutor(0, MAX_HEDGE_THREADS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
          daemons("hedge"));
    }
    return hedgeThreads;
  }

  private synchronized ThreadPoolExecutor cancels() {
    requireOpen();
    if (cancels == null) {
      cancels = new ThreadPoolExecutor(0, CANCEL_THREADS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
          daemons("hedge-cancel"));
    }
    return cancels;
  }

  private void requireOpen() {
    if (closed) {
      throw new RejectedExecutionException("session factory closed");
    }
  }

  private java.util.concurrent.ThreadFactory daemons(String what) {
    AtomicInteger next = new AtomicInteger();
    return task -> {
      Thread t = new Thread(task, "shardwise-" + unitName + "-" + what + "-" + next.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (ThreadPoolExecutor pool : new ThreadPoolExecutor[] {timer, hedgeThreads, cancels}) {
      if (pool != null) {
        pool.shutdownNow();
      }
    }
  }
}
