package io.shardwise.hibernate.id;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * How a Snowflake id's 63 usable bits are split, and the decoder operators use to read an id back.
 *
 * <pre>
 *   0 | milliseconds since epoch | worker | sequence
 *   1 |  63 - workerBits - sequenceBits | workerBits | sequenceBits
 * </pre>
 *
 * <p>The default is the classic split: 41 bits of milliseconds (about 69 years after the epoch),
 * 10 bits of worker (1024 workers) and 12 bits of sequence (4096 ids per millisecond and worker).
 * The sign bit is always 0, so ids are positive {@code long}s and sort by creation time across
 * workers (to the millisecond).
 *
 * <pre>{@code
 * SnowflakeLayout layout = SnowflakeLayout.DEFAULT;
 * SnowflakeLayout.Decoded parts = layout.decode(order.getId());
 * // Decoded[timestamp=2026-11-29T21:30:00.123Z, worker=7, sequence=1931]
 * }</pre>
 *
 * <p>Ids are only comparable and decodable with the layout that made them: never change the epoch
 * or the split of an entity that already has rows.
 */
public final class SnowflakeLayout {

  /** 2024-01-01T00:00:00Z, the epoch of {@link #DEFAULT} and of {@link SnowflakeId}. */
  public static final Instant DEFAULT_EPOCH = Instant.parse("2024-01-01T00:00:00Z");

  /** 41 bits of milliseconds since {@link #DEFAULT_EPOCH}, 10 bits of worker, 12 of sequence. */
  public static final SnowflakeLayout DEFAULT = of(DEFAULT_EPOCH, 10, 12);

  /** Fewer than 31 timestamp bits would wrap in under 25 days. */
  private static final int MIN_TIMESTAMP_BITS = 31;

  private final long epochMillis;
  private final int workerBits;
  private final int sequenceBits;

  private SnowflakeLayout(long epochMillis, int workerBits, int sequenceBits) {
    this.epochMillis = epochMillis;
    this.workerBits = workerBits;
    this.sequenceBits = sequenceBits;
  }

  /**
   * A layout with the given epoch and split; the timestamp gets the remaining {@code 63 -
   * workerBits - sequenceBits} bits.
   *
   * @throws IllegalArgumentException when a part is empty or too wide, or when fewer than 31 bits
   *     are left for the timestamp
   */
  public static SnowflakeLayout of(Instant epoch, int workerBits, int sequenceBits) {
    if (epoch == null) {
      throw new IllegalArgumentException("epoch is null: pass an instant in the past, e.g. " + DEFAULT_EPOCH);
    }
    if (workerBits < 1 || workerBits > 20) {
      throw new IllegalArgumentException("workerBits = " + workerBits
          + ": use 1..20 (10 gives 1024 workers)");
    }
    if (sequenceBits < 1 || sequenceBits > 22) {
      throw new IllegalArgumentException("sequenceBits = " + sequenceBits
          + ": use 1..22 (12 gives 4096 ids per millisecond and worker)");
    }
    int timestampBits = 63 - workerBits - sequenceBits;
    if (timestampBits < MIN_TIMESTAMP_BITS) {
      throw new IllegalArgumentException("workerBits = " + workerBits + " and sequenceBits = " + sequenceBits
          + " leave " + timestampBits + " timestamp bits; keep workerBits + sequenceBits <= "
          + (63 - MIN_TIMESTAMP_BITS) + " so that ids do not run out within years");
    }
    return new SnowflakeLayout(epoch.toEpochMilli(), workerBits, sequenceBits);
  }

  /** The layout that {@code annotation} describes; its epoch must be an ISO-8601 instant. */
  public static SnowflakeLayout of(SnowflakeId annotation) {
    Instant epoch;
    try {
      epoch = Instant.parse(annotation.epoch());
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("@SnowflakeId(epoch = \"" + annotation.epoch()
          + "\") is not an ISO-8601 instant: write it like \"2024-01-01T00:00:00Z\"", e);
    }
    return of(epoch, annotation.workerBits(), annotation.sequenceBits());
  }

  public Instant epoch() {
    return Instant.ofEpochMilli(epochMillis);
  }

  public long epochMillis() {
    return epochMillis;
  }

  public int workerBits() {
    return workerBits;
  }

  public int sequenceBits() {
    return sequenceBits;
  }

  public int timestampBits() {
    return 63 - workerBits - sequenceBits;
  }

  /** The highest worker id this layout can carry: {@code 2^workerBits - 1}. */
  public int maxWorkerId() {
    return (1 << workerBits) - 1;
  }

  /** How many ids one worker can make per millisecond: {@code 2^sequenceBits}. */
  public int idsPerMillisecond() {
    return 1 << sequenceBits;
  }

  /** The last instant this layout can encode; ids cannot be made after it. */
  public Instant lastInstant() {
    return Instant.ofEpochMilli(epochMillis + ((1L << timestampBits()) - 1));
  }

  /**
   * The parts of {@code id}.
   *
   * @throws IllegalArgumentException when {@code id} is negative (no Snowflake id is)
   */
  public Decoded decode(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("id " + id + " is negative: Snowflake ids never set the sign bit");
    }
    long sequence = id & ((1L << sequenceBits) - 1);
    long worker = (id >>> sequenceBits) & ((1L << workerBits) - 1);
    long millis = id >>> (sequenceBits + workerBits);
    return new Decoded(Instant.ofEpochMilli(epochMillis + millis), (int) worker, (int) sequence);
  }

  /** The smallest id this layout gives to {@code instant} (worker 0, sequence 0); handy for range queries by time. */
  public long firstIdAt(Instant instant) {
    long millis = instant.toEpochMilli() - epochMillis;
    if (millis < 0 || millis >= (1L << timestampBits())) {
      throw new IllegalArgumentException(instant + " is outside this layout's range " + epoch() + " .. " + lastInstant());
    }
    return millis << (sequenceBits + workerBits);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SnowflakeLayout other && other.epochMillis == epochMillis
        && other.workerBits == workerBits && other.sequenceBits == sequenceBits;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(epochMillis) * 31 * 31 + workerBits * 31 + sequenceBits;
  }

  @Override
  public String toString() {
    return "SnowflakeLayout[epoch=" + epoch() + ", timestampBits=" + timestampBits() + ", workerBits=" + workerBits
        + ", sequenceBits=" + sequenceBits + "]";
  }

  /**
   * What an id says about itself.
   *
   * @param timestamp the millisecond the id belongs to; under a burst or a clock step back it can be
   *     a few milliseconds later than the wall clock at the moment it was made
   * @param worker the worker id of the generator that made it
   * @param sequence its position within that worker's millisecond
   */
  public record Decoded(Instant timestamp, int worker, int sequence) {}
}
