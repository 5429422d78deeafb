package io.shardwise.hibernate.internal.jdbc;

import io.shardwise.hibernate.BreakerState;
import io.shardwise.hibernate.NodeStatus;
import io.shardwise.hibernate.ShardUnavailableException;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The circuit breaker in front of one server (a shard's primary, or one replica).
 *
 * <h2>What it does</h2>
 *
 * After {@code threshold} consecutive failures that say the server is not answering — a checkout
 * that timed out or could not connect, a connection lost or timed out in the middle of a statement
 * — the breaker opens: calls fail at once with {@link ShardUnavailableException} (its
 * {@link ShardUnavailableException#breakerState() breakerState()} set), without waiting on the
 * server or its pool, so threads do not pile up on a frozen node. After {@code openMillis} the next
 * call becomes the single probe ({@code HALF_OPEN}): it opens a connection of its own straight
 * from the driver and makes one round trip; on success the breaker closes, on failure it opens for another interval. Every other call
 * during the probe still fails at once. A unit of work that ends without a lost connection is a
 * success and resets the count. Ordinary SQL errors (constraints, syntax, a statement the live
 * server cancelled) are answers, not failures, and are not counted.
 *
 * <h2>Cost when closed</h2>
 *
 * The check on the way in ({@link #permit()}) is one volatile read; a success is one more
 * (the failure count is written only when it is not already zero). Nothing is allocated unless a
 * failure happens or the breaker is open. Releasing callers (below) costs each session's
 * connection one concurrent-map entry for its checkout and one for its loan, nothing per statement.
 *
 * <h2>Concurrency</h2>
 *
 * The state is one atomic integer; the moves OPEN → HALF_OPEN (taking the probe) and CLOSED → OPEN
 * are compare-and-set, so exactly one thread takes the probe and the open time is written once per
 * opening. A probe that never reports (its thread died) is given up after {@code probeLeaseMillis},
 * and the next caller probes instead. The descriptive fields ({@code lastFailure}, the times) are
 * volatile and may lag the state by a moment; they are for messages and status only.
 *
 * <h2>Releasing the callers of a silent server</h2>
 *
 * A refusal only helps calls not yet made; a call already inside a statement on a frozen server
 * waits for its socket timeout. So the breaker also knows the connections it has lent to sessions
 * ({@link ShardConnection} joins the set at checkout and leaves at release: one set operation each
 * way, nothing per statement), and when a probe finds the server silent — the breaker's own probe,
 * or the replica monitor's two checks in a row ({@link #unreachable}) — it {@link ShardConnection#abort(String)
 * aborts} each of them: the driver closes the socket without waiting for the server, and every
 * caller inside a call fails at once with {@link ShardUnavailableException}. Failures counted by
 * callers alone open the breaker but abort nothing: a checkout that timed out may mean a busy pool,
 * and a statement on a live but slow server must run to its end. Only a probe that got no answer
 * tells a silent server from a slow one.
 *
 * <p>Callers still waiting in the pool's checkout are released too: when there are any, the pool's
 * idle connections are evicted ({@link #whenSilent}), so that no waiter goes on to validate one
 * against the silent server (HikariCP's validation cannot be interrupted), and each thread
 * registered in {@link #checkoutStarted()} is interrupted — at most once, and only
 * while it is still registered: the registration and the interrupt are made under the same map
 * entry's lock, so a thread that has left ({@link #checkoutEnded()}) is never interrupted later, and
 * the interrupt it got is cleared as it leaves.
 *
 * <h2>Why our own class</h2>
 *
 * Resilience4j's breaker records every call's outcome in a sliding window (a synchronized ring
 * buffer) and allocates on the way in; the request path here must stay at one volatile read, and
 * the rule wanted ("N consecutive timeouts, then one probe") is about forty lines.
 */
public final class NodeBreaker {
  /** {@link #permit()}: the call goes through normally. */
  public static final int PASS = 0;
  /** {@link #permit()}: the call is the probe; report it with {@link #probeSucceeded()} or {@link #failed}. */
  public static final int PROBE = 1;
  /** {@link #permit()}: refused; throw {@link #refusal()}. */
  public static final int REFUSED = -1;

  private static final int CLOSED = 0;
  private static final int OPEN = 1;
  private static final int HALF_OPEN = 2;
  private static final long ANSWER_RESOLUTION_NANOS = 1_000_000;

  private final String shardId;
  private final String node;
  private final int threshold;
  private final long openNanos;
  private final long probeLeaseNanos;
  private final AtomicInteger state = new AtomicInteger(CLOSED);
  private final AtomicInteger failures = new AtomicInteger();
  private volatile long openedAtNanos;
  private volatile long probeStartedNanos;
  private volatile Instant openedAt;
  private volatile String lastFailure;
  /** System.nanoTime() when the server last answered: a unit of work ended without a lost connection, or a check reached it. */
  private volatile long answeredNanos = System.nanoTime() - Long.MAX_VALUE / 2;
  /** System.nanoTime() when the last {@link #answersSince} check that found the server silent ended. */
  private volatile long silentNanos = System.nanoTime() - Long.MAX_VALUE / 2;
  private final java.util.concurrent.locks.ReentrantLock checking = new java.util.concurrent.locks.ReentrantLock();
  /** The connections this server has lent to sessions and not yet got back (see the class comment). */
  private final Set<ShardConnection> lent = ConcurrentHashMap.newKeySet();
  /** Threads in the pool's checkout: true once interrupted because the server was found silent. */
  private final ConcurrentHashMap<Thread, Boolean> waiting = new ConcurrentHashMap<>();
  /** Evicts the idle connections of this server's pool (set by the pool's owner); null for none. */
  private volatile Runnable evictIdle;

  /**
   * @param node the server as messages name it ({@code primary host:port})
   * @param threshold consecutive failures that open the breaker
   * @param openMillis how long it stays open before a probe
   * @param probeLeaseMillis how long a probe may take before another caller may probe instead
   */
  public NodeBreaker(String shardId, String node, int threshold, long openMillis, long probeLeaseMillis) {
    this.shardId = shardId;
    this.node = node;
    this.threshold = threshold;
    this.openNanos = TimeUnit.MILLISECONDS.toNanos(openMillis);
    this.probeLeaseNanos = TimeUnit.MILLISECONDS.toNanos(probeLeaseMillis);
  }

  public String node() {
    return node;
  }

  /** {@link #PASS}, {@link #PROBE} or {@link #REFUSED}: one volatile read while closed. */
  public int permit() {
    return state.get() == CLOSED ? PASS : permitSlow();
  }

  private int permitSlow() {
    long now = System.nanoTime();
    int s = state.get();
    if (s == OPEN && now - openedAtNanos >= openNanos && state.compareAndSet(OPEN, HALF_OPEN)) {
      probeStartedNanos = now;
      return PROBE;
    }
    if (s == HALF_OPEN && now - probeStartedNanos >= probeLeaseNanos) {
      probeStartedNanos = now; // the previous probe never reported: this caller probes instead
      return PROBE;
    }
    return s == CLOSED ? PASS : REFUSED;
  }

  /** The exception for a {@link #REFUSED} call. */
  public ShardUnavailableException refusal() {
    int s = state.get();
    BreakerState shown = s == HALF_OPEN ? BreakerState.HALF_OPEN : BreakerState.OPEN;
    long nextProbeMs = Math.max(0, TimeUnit.NANOSECONDS.toMillis(openedAtNanos + openNanos - System.nanoTime()));
    return new ShardUnavailableException("Shard '" + shardId + "' is unavailable: the circuit breaker of its " + node
        + " is " + shown + " after " + Math.max(threshold, failures.get()) + " consecutive failures (last: "
        + lastFailure + "); calls fail at once until a probe succeeds ("
        + (shown == BreakerState.HALF_OPEN ? "a probe is under way" : "next probe in " + nextProbeMs + " ms")
        + "). Sessions on other shards are unaffected; retry later.", shardId, node, shown, null);
  }

  /** A unit of work on this server ended without a lost connection. */
  public void succeeded() {
    if (failures.get() != 0) {
      failures.set(0);
    }
    long now = System.nanoTime();
    if (now - answeredNanos > ANSWER_RESOLUTION_NANOS) { // a busy server's units write it once a millisecond at most
      answeredNanos = now;
    }
  }

  /** The probe reached the server: the breaker closes. */
  public void probeSucceeded() {
    failures.set(0);
    answeredNanos = System.nanoTime();
    state.set(CLOSED);
  }

  /**
   * Whether the server has answered since {@code sinceNanos} (a {@link System#nanoTime()} value):
   * a unit of work on it ended without a lost connection since then, or else {@code check} — a
   * round trip on a connection of its own, true when the server answered — says so. Whatever the
   * number of callers, one runs the check at a time, and a caller that waited for another's check
   * takes its result: one round trip per wave of callers. Used to tell a busy server (every
   * connection in use, none came back in time) from a silent one when a checkout timed out.
   */
  public boolean answersSince(long sinceNanos, java.util.function.BooleanSupplier check) {
    if (answeredNanos - sinceNanos >= 0) {
      return true;
    }
    checking.lock();
    try {
      if (answeredNanos - sinceNanos >= 0) {
        return true;
      }
      if (silentNanos - sinceNanos >= 0) {
        return false;
      }
      long checked = System.nanoTime();
      if (check.getAsBoolean()) {
        answeredNanos = checked;
        return true;
      }
      // silent for the whole check: callers that began waiting before it ended take this answer
      silentNanos = System.nanoTime();
      return false;
    } finally {
      checking.unlock();
    }
  }

  /**
   * A timeout or connection failure on this server; {@code probe} when it was the probe's.
   *
   * @param what the failure as the caller's message says it, kept for the status and the next refusal
   */
  public void failed(boolean probe, String what) {
    lastFailure = what;
    int count = failures.incrementAndGet();
    if (probe) {
      open(HALF_OPEN);
      releaseCallers(what);
    } else if (count >= threshold) {
      open(CLOSED);
    }
  }

  /**
   * A check of the server's own (the replica monitor's) got no answer: the breaker opens, or stays
   * open from now, and every connection lent to a session is aborted. A probe under way is left to
   * report.
   *
   * @param what what the check saw, for the callers' messages and the status
   */
  public void unreachable(String what) {
    lastFailure = what;
    failures.incrementAndGet();
    if (state.get() == CLOSED) {
      open(CLOSED);
    } else if (state.get() == OPEN) {
      openedAtNanos = System.nanoTime(); // no caller probes a server the monitor has just found silent
    }
    releaseCallers(what);
  }

  /** Aborts every connection lent to a session, evicts the idle ones, and interrupts the checkouts under way. */
  private void releaseCallers(String what) {
    for (ShardConnection c : lent) {
      c.abort(what);
    }
    Runnable evict = evictIdle;
    if (evict != null && !waiting.isEmpty()) {
      evict.run(); // else they stay: after the thaw they serve at once, without a new connection each
    }
    for (Thread t : waiting.keySet()) {
      waiting.computeIfPresent(t, (thread, interrupted) -> {
        if (!interrupted) {
          thread.interrupt();
        }
        return Boolean.TRUE;
      });
    }
  }

  /** {@code evict} drops the idle connections of this server's pool when the server is found silent. */
  public void whenSilent(Runnable evict) {
    this.evictIdle = evict;
  }

  /** The calling thread begins a checkout from this server's pool; it must call {@link #checkoutEnded()} after. */
  public void checkoutStarted() {
    waiting.put(Thread.currentThread(), Boolean.FALSE);
  }

  /**
   * The calling thread's checkout is over. True when the server was found silent meanwhile and the
   * thread was interrupted for it: that interrupt is cleared, and the caller must give up the
   * checkout (with {@link #refusal()}) whatever it returned.
   */
  public boolean checkoutEnded() {
    if (waiting.remove(Thread.currentThread()) == Boolean.TRUE) {
      Thread.interrupted();
      return true;
    }
    return false;
  }

  /**
   * Whether a session holds a connection of this server or a thread is in its pool's checkout:
   * whether a silent server would hold anyone that {@link #unreachable} could release.
   */
  public boolean hasCallers() {
    return !lent.isEmpty() || !waiting.isEmpty();
  }

  /** A connection lent to a session on this server (by its wrapper, at checkout). */
  void lend(ShardConnection c) {
    lent.add(c);
  }

  /** The connection is back (its wrapper is released). */
  void giveBack(ShardConnection c) {
    lent.remove(c);
  }

  private void open(int from) {
    // written before the state, so that no caller sees OPEN beside the previous opening's time (a
    // losing compare-and-set only moves a current opening's time by a moment)
    openedAtNanos = System.nanoTime();
    openedAt = Instant.now();
    state.compareAndSet(from, OPEN);
  }

  public BreakerState state() {
    return switch (state.get()) {
      case OPEN -> BreakerState.OPEN;
      case HALF_OPEN -> BreakerState.HALF_OPEN;
      default -> BreakerState.CLOSED;
    };
  }

  public NodeStatus status() {
    return new NodeStatus(shardId, node, state(), failures.get(), lastFailure, openedAt);
  }
}
