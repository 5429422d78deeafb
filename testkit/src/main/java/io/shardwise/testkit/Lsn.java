package io.shardwise.testkit;

/**
 * A PostgreSQL write-ahead-log position ({@code pg_lsn}), ordered as the server orders it.
 *
 * @param value the 64-bit position; PostgreSQL prints it as two hexadecimal halves, {@code 16/B374D848}
 */
public record Lsn(long value) implements Comparable<Lsn> {

  /** Parses the server's text form, for example {@code 0/3000148}. */
  public static Lsn parse(String text) {
    int slash = text == null ? -1 : text.indexOf('/');
    if (slash <= 0 || slash == text.length() - 1) {
      throw new IllegalArgumentException("Not a PostgreSQL LSN (expected e.g. 0/3000148): '" + text + "'");
    }
    long high = Long.parseLong(text.substring(0, slash), 16);
    long low = Long.parseLong(text.substring(slash + 1), 16);
    return new Lsn((high << 32) | low);
  }

  public boolean isAtOrAfter(Lsn other) {
    return Long.compareUnsigned(value, other.value) >= 0;
  }

  @Override
  public int compareTo(Lsn other) {
    return Long.compareUnsigned(value, other.value);
  }

  @Override
  public String toString() {
    return Long.toHexString(value >>> 32).toUpperCase() + "/" + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase();
  }
}
