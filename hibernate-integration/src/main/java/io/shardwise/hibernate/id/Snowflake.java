package io.shardwise.hibernate.id;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

/**
 * A lock-free Snowflake id generator for one worker id: 64-bit, positive, time-ordered ids laid
 * out by a {@link SnowflakeLayout}.
 *
 * <pre>{@code
 * Snowflake ids = Snowflake.builder(SnowflakeLayout.DEFAULT).workerId(7).build();
 * long id = ids.nextId();   // thread-safe, no lock
 * }</pre>
 *
 * <h2>How it stays correct under concurrency</h2>
 *
 * All state is one {@code long} in an {@link AtomicLong}: the millisecond and the sequence of the
 * last id issued, packed as {@code millis << sequenceBits | sequence} (the worker bits are fixed,
 * so they need no state). {@link #nextId()} reads the clock and the state, computes the successor,
 * and publishes it with a single compare-and-set; the thread whose CAS wins owns that id, the
 * others retry with the new state. Every successor is greater than the state it replaces, so ids
 * of one generator are strictly increasing in the order the CASes succeed, hence strictly
 * increasing within every thread and never repeated across threads.
 *
 * <p>The successor is:
 *
 * <ul>
 *   <li>when the clock is more than 10 ms past the last id's millisecond: the current
 *       millisecond, at a start sequence derived from the millisecond and the worker id (a hash,
 *       so uniformly spread over the sequence range); at low traffic the sequence bits then do
 *       not sit at 0, and {@code id % n} is not skewed;
 *   <li>otherwise the last state plus one. When a millisecond's sequence is used up this carries
 *       into the next millisecond, but only if that millisecond is at most one ahead of the
 *       clock; otherwise the caller waits (spinning) for the clock. Sustained throughput is
 *       therefore the layout's ceiling, {@code 2^sequenceBits} ids per millisecond, and ids never
 *       run more than a millisecond ahead of a clock that only moves forward. While the last id
 *       lags the clock by at most 10 ms, counting simply goes on: capacity lost to a short
 *       stall of the generating thread is made up afterwards instead of being skipped. An id's
 *       timestamp is therefore within [-10 ms, +1 ms] of the moment it was made.
 * </ul>
 *
 * <h2>A clock that goes backwards</h2>
 *
 * The state remembers the last millisecond used, so a clock that steps back never produces an id
 * twice: the generator finishes the last id's millisecond, then waits until the clock is back
 * within a millisecond of it. If the clock is behind the last id by more than
 * {@link Builder#maxClockStepBack(Duration)} plus that millisecond (default 10 ms), waiting would
 * stall callers for too long and {@link ClockMovedBackwardsException} is thrown instead; the
 * generator recovers by itself when the clock has caught up.
 *
 * <h2>Worker ids</h2>
 *
 * Either fixed ({@link Builder#workerId(int)}) or leased ({@link Builder#workerLease(WorkerLease)});
 * with a lease every id checks, against the clock reading it already took, that the lease is still
 * safely held, and throws {@link WorkerLeaseLostException} otherwise. Two generators must never
 * share a worker id and layout at the same time: their ids would collide.
 */
public final class Snowflake {

  /** How many milliseconds ahead of the clock the generator may run after using up a millisecond. */
  static final long BORROW_MILLIS = 1;
  /**
   * How many milliseconds the last id may lag the clock before the next id jumps to the clock. A
   * thread descheduled (or a GC pause) for up to this long does not lose those milliseconds'
   * sequence space: the generator catches up on them at CPU speed.
   */
  static final long CATCH_UP_MILLIS = 10;
  /** The first block of ids {@link #nextIdMatching} takes with one CAS; the next ones are {@link #MAX_BLOCK}. */
  static final int FIRST_BLOCK = 4;
  /** The block after the first: small, because the ids of a block after the accepted one go unused. */
  static final int MAX_BLOCK = 8;

  private final SnowflakeLayout layout;
  private final Clock clock;
  private final WorkerLease worker;
  private final int workerId;
  private final long epochMillis;
  private final int sequenceBits;
  private final long sequenceMask;
  private final int workerBits;
  private final long workerPart;
  /** The largest state whose millisecond still fits the layout's timestamp bits. */
  private final long maxState;
  /** Past this lead of the last id over the clock, the clock went back too far. */
  private final long maxLeadMillis;
  /** Mixed into the start sequence, so that workers start their milliseconds at different points. */
  private final long startSalt;

  /** {@code millis << sequenceBits | sequence} of the last id issued (millis since the epoch). */
  private final AtomicLong state = new AtomicLong();

  private Snowflake(Builder b, WorkerLease worker, Clock clock) {
    this.layout = b.layout;
    this.clock = clock;
    this.worker = worker;
    this.workerId = worker.workerId();
    this.epochMillis = layout.epochMillis();
    this.sequenceBits = layout.sequenceBits();
    this.sequenceMask = (1L << sequenceBits) - 1;
    this.workerBits = layout.workerBits();
    this.workerPart = (long) workerId << sequenceBits;
    this.maxState = (1L << (layout.timestampBits() + sequenceBits)) - 1;
    this.maxLeadMillis = b.maxStepBackMillis + BORROW_MILLIS;
    this.startSalt = mix(0x5348415244574953L + workerId);
  }

  /** Starts a generator with the given layout; a worker id (fixed or leased) is required. */
  public static Builder builder(SnowflakeLayout layout) {
    if (layout == null) {
      throw new IllegalArgumentException("layout is null: use SnowflakeLayout.DEFAULT or SnowflakeLayout.of(...)");
    }
    return new Builder(layout);
  }

  /**
   * The next id: greater than every id this generator issued before, in any thread.
   *
   * @throws ClockMovedBackwardsException when the clock is further behind the last id than the
   *     configured tolerance
   * @throws WorkerLeaseLostException when the worker id is leased and the lease is lost or overdue
   * @throws IllegalStateException when the clock is before the layout's epoch or past its last
   *     instant
   */
  public long nextId() {
    return nextId(maxLeadMillis - BORROW_MILLIS);
  }

  /**
   * {@link #nextId()} with the clock step-back tolerance of the caller: attributes with different
   * tolerances share one generator (one state per worker id), each failing at its own bound.
   */
  long nextId(long maxStepBackMillis) {
    return encode(reserve(1, maxStepBackMillis));
  }

  /**
   * The next id that {@code accept} accepts, drawing ids in order and dropping the others (their
   * sequence numbers are simply not used). For an id that must route to one shard of {@code S}
   * equally weighted shards a call draws {@code S} ids on average; the draws are independent
   * because routing hashes the id.
   *
   * <p>Ids are taken in blocks of consecutive sequence numbers of one millisecond, one CAS and one
   * clock read per block instead of per id; blocks of 4 ids, then of 8. The ids of a block
   * after the accepted one are not used, so a call uses a few more sequence numbers than it draws.
   *
   * @param maxDraws how many ids to draw at most
   * @throws NoMatchingIdException when none of {@code maxDraws} ids is accepted; nothing is lost
   *     but sequence numbers
   * @throws ClockMovedBackwardsException as {@link #nextId()}
   * @throws WorkerLeaseLostException as {@link #nextId()}
   */
  public long nextIdMatching(LongPredicate accept, int maxDraws) {
    return nextIdMatching(accept, maxDraws, maxLeadMillis - BORROW_MILLIS);
  }

  /** {@link #nextIdMatching(LongPredicate, int)} with the caller's step-back tolerance. */
  long nextIdMatching(LongPredicate accept, int maxDraws, long maxStepBackMillis) {
    if (maxDraws < 1) {
      throw new IllegalArgumentException("maxDraws = " + maxDraws + ": draw at least one id");
    }
    int drawn = 0;
    int block = FIRST_BLOCK;
    while (drawn < maxDraws) {
      int count = Math.min(block, maxDraws - drawn);
      long first = reserve(count, maxStepBackMillis);
      long end = blockEnd(first, count);
      for (long s = first; s <= end; s++) {
        long id = encode(s);
        if (accept.test(id)) {
          return id;
        }
      }
      drawn += (int) (end - first + 1);
      block = Math.min(block << 1, MAX_BLOCK);
    }
    throw new NoMatchingIdException("none of " + maxDraws + " ids drawn from " + this + " was accepted: the"
        + " condition accepts too few ids (an id routed to a shard that owns no bucket, or a range no time-ordered"
        + " id reaches?)", maxDraws);
  }

  /**
   * Takes up to {@code count} consecutive states of one millisecond with one CAS and returns the
   * first; the block ends at {@link #blockEnd(long, int)}. With {@code count = 1} this is exactly
   * the successor rule of the class comment.
   */
  private long reserve(int count, long maxStepBackMillis) {
    final long maxLeadMillis = maxStepBackMillis + BORROW_MILLIS;
    final Clock clock = this.clock;
    final WorkerLease worker = this.worker;
    final AtomicLong state = this.state;
    for (;;) {
      // state first, clock second: every id in `last` was made from a clock reading taken before
      // this one, so a thread descheduled in between cannot mistake its stale reading for a step back
      long last = state.get();
      long wall = clock.millis();
      if (wall >= worker.usableUntil()) {
        throw worker.lostException(wall);
      }
      long now = wall - epochMillis;
      long lastMillis = last >>> sequenceBits;
      long next;
      if (now > lastMillis + CATCH_UP_MILLIS) {
        if (now > (maxState >>> sequenceBits)) {
          throw outOfRange(wall);
        }
        next = (now << sequenceBits) | startSequence(now);
      } else {
        long lead = lastMillis - now;
        if (lead > maxLeadMillis) {
          throw clockMovedBack(lead, wall, maxLeadMillis);
        }
        next = last + 1;
        if ((next & sequenceMask) == 0 && lead >= BORROW_MILLIS) {
          // this millisecond is used up and the next one would be too far ahead of the clock
          Thread.onSpinWait();
          continue;
        }
        if (next > maxState) {
          throw outOfRange(wall);
        }
      }
      if (state.compareAndSet(last, count == 1 ? next : blockEnd(next, count))) {
        return next;
      }
    }
  }

  /** The last state of a block of up to {@code count} states from {@code first}: within its millisecond and the layout. */
  private long blockEnd(long first, int count) {
    return Math.min(Math.min(first | sequenceMask, first + count - 1), maxState);
  }

  private long encode(long state) {
    return ((state & ~sequenceMask) << workerBits) | workerPart | (state & sequenceMask);
  }

  public SnowflakeLayout layout() {
    return layout;
  }

  public int workerId() {
    return workerId;
  }

  @Override
  public String toString() {
    return "Snowflake[worker=" + workerId + ", " + layout + "]";
  }

  // ---------------------------------------------------------------------------------------
  // Internals
  // ---------------------------------------------------------------------------------------

  /** The sequence a fresh millisecond starts at: a hash of the millisecond and the worker. */
  long startSequence(long millis) {
    return mix(millis ^ startSalt) & sequenceMask;
  }

  /** A 64-bit finalizer (xor-shift / multiply rounds): every input bit affects every output bit. */
  static long mix(long x) {
    x = (x ^ (x >>> 31)) * 0x7fb5d329728ea185L;
    x = (x ^ (x >>> 27)) * 0x81dadef4bc2dd44dL;
    return x ^ (x >>> 33);
  }

  private ClockMovedBackwardsException clockMovedBack(long behind, long wall, long maxLeadMillis) {
    return new ClockMovedBackwardsException("the clock (" + Instant.ofEpochMilli(wall) + ") is " + behind
        + " ms behind the last id of Snowflake worker " + workerId + ", more than the tolerated "
        + (maxLeadMillis - BORROW_MILLIS) + " ms step back plus " + BORROW_MILLIS
        + " ms of lead: no id is issued until the clock catches up. Check the host's time"
        + " synchronization, or raise maxClockStepBack", behind);
  }

  private IllegalStateException outOfRange(long wall) {
    return new IllegalStateException("the clock (" + Instant.ofEpochMilli(wall) + ") is outside the range of "
        + layout + " (" + layout.epoch() + " .. " + layout.lastInstant()
        + "): check the clock, or use a layout with another epoch for new entities");
  }

  // ---------------------------------------------------------------------------------------
  // Builder
  // ---------------------------------------------------------------------------------------

  /** Options of a generator; {@link #build()} checks them together. */
  public static final class Builder {
    private final SnowflakeLayout layout;
    private Integer fixedWorker;
    private WorkerLease lease;
    private Clock clock;
    private long maxStepBackMillis = 10;

    private Builder(SnowflakeLayout layout) {
      this.layout = layout;
    }

    /** A worker id given by configuration, between 0 and {@link SnowflakeLayout#maxWorkerId()}. */
    public Builder workerId(int workerId) {
      if (workerId < 0 || workerId > layout.maxWorkerId()) {
        throw new IllegalArgumentException("worker id " + workerId + " does not fit " + layout.workerBits()
            + " worker bits: use 0.." + layout.maxWorkerId());
      }
      this.fixedWorker = workerId;
      return this;
    }

    /** A worker id leased from the control database; the generator stops when the lease is lost. */
    public Builder workerLease(WorkerLease lease) {
      if (lease == null) {
        throw new IllegalArgumentException("lease is null: acquire one with WorkerLease.builder(url)...acquire()");
      }
      if (lease.workerId() > layout.maxWorkerId()) {
        throw new IllegalArgumentException("leased worker id " + lease.workerId() + " does not fit "
            + layout.workerBits() + " worker bits: lease with maxWorkerId(" + layout.maxWorkerId() + ")");
      }
      this.lease = lease;
      return this;
    }

    /**
     * The clock to read (default {@link Clock#system()}). With a {@link #workerLease(WorkerLease)}
     * the lease's clock is used, and a different one here is rejected.
     */
    public Builder clock(Clock clock) {
      if (clock == null) {
        throw new IllegalArgumentException("clock is null: use Clock.system()");
      }
      this.clock = clock;
      return this;
    }

    /**
     * How far the clock may step back behind the last id before {@link #nextId()} throws
     * {@link ClockMovedBackwardsException} rather than waiting for it (default 10 ms, at most 1 s).
     */
    public Builder maxClockStepBack(Duration tolerance) {
      if (tolerance == null || tolerance.isNegative() || tolerance.compareTo(Duration.ofSeconds(1)) > 0) {
        throw new IllegalArgumentException("maxClockStepBack = " + tolerance
            + ": use 0 to 1 s; callers wait that long at most while the clock catches up (default 10 ms)");
      }
      this.maxStepBackMillis = tolerance.toMillis();
      return this;
    }

    public Snowflake build() {
      if ((fixedWorker == null) == (lease == null)) {
        throw new IllegalStateException(fixedWorker == null
            ? "no worker id: call workerId(int) or workerLease(WorkerLease)"
            : "both workerId(" + fixedWorker + ") and workerLease(" + lease + ") given: choose one");
      }
      Clock effective;
      WorkerLease worker;
      if (lease != null) {
        if (clock != null && clock != lease.clock()) {
          throw new IllegalStateException("a leased worker id is checked on the lease's clock: pass the clock to"
              + " WorkerLease.builder(...).clock(...) instead of Snowflake.builder(...).clock(...)");
        }
        effective = lease.clock();
        worker = lease;
      } else {
        effective = clock != null ? clock : Clock.system();
        worker = WorkerLease.fixed(fixedWorker, effective);
      }
      long wall = effective.millis();
      if (wall < layout.epochMillis()) {
        throw new IllegalStateException("the clock (" + Instant.ofEpochMilli(wall) + ") is before the epoch of "
            + layout + ": use an epoch in the past");
      }
      return new Snowflake(this, worker, effective);
    }
  }
}
