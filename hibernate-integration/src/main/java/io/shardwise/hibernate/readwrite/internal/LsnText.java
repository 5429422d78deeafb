package io.shardwise.hibernate.readwrite.internal;

/** PostgreSQL's {@code pg_lsn} text form ({@code 16/B374D848}) to and from a 64-bit position. */
public final class LsnText {
  private LsnText() {}

  public static long parse(String text) {
    int slash = text.indexOf('/');
    return (Long.parseLong(text.substring(0, slash), 16) << 32) | Long.parseLong(text.substring(slash + 1), 16);
  }

  public static String format(long lsn) {
    return Long.toHexString(lsn >>> 32).toUpperCase() + "/" + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase();
  }
}
