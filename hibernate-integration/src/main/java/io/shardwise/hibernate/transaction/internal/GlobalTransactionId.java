package io.shardwise.hibernate.transaction.internal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The id under which the prepared participants of one cross-shard transaction sit in
 * {@code pg_prepared_xacts}: {@code sw:<coordinator>:<decider shard>:<incarnation>:<decider xid>}.
 *
 * <ul>
 *   <li>{@code coordinator}: the 16 lowercase hex digits of the runtime that started it, whose heartbeat
 *       tells recovery whether it is still alive;
 *   <li>{@code decider shard}: the shard whose local transaction commits in one phase and thereby
 *       decides the outcome (a shard id: letters, digits, {@code _ . -});
 *   <li>{@code incarnation}: 12 lowercase hex digits that identify the decider's server history (its
 *       system identifier and timeline; see {@link #INCARNATION_SQL}): a transaction id means
 *       something only on the server history that assigned it;
 *   <li>{@code decider xid}: that transaction's 64-bit id ({@code pg_current_xact_id()}), in decimal
 *       without leading zeros.
 * </ul>
 *
 * <p>Recovery reads gids that any role with a login on a shard can write. {@link #parse} therefore
 * accepts only this exact, canonical form, and {@link #sqlLiteral()} renders the literal from the
 * parsed parts alone; no character of the listed text reaches SQL.
 */
final class GlobalTransactionId {
  static final String PREFIX = "sw:";

  /**
   * The server history a transaction id belongs to: a failover or a point-in-time restore starts a
   * new timeline, a rebuilt cluster has a new system identifier, and either may hand out the same
   * transaction ids again.
   */
  static final String INCARNATION_SQL = "left(md5((SELECT system_identifier FROM pg_control_system())::text || ':'"
      + " || left(pg_walfile_name(pg_current_wal_lsn()), 8)), 12)";

  private static final Pattern FORMAT = Pattern.compile(
      "sw:([0-9a-f]{16}):([A-Za-z0-9_][A-Za-z0-9_.-]{0,62}):([0-9a-f]{12}):(0|[1-9][0-9]{0,19})");

  private final String coordinator;
  private final String deciderShard;
  private final String deciderIncarnation;
  private final long deciderXid;
  private final String gid;
  private final String sqlLiteral;

  /** Checks each part by hand (no regular expression: the coordinator builds one id per commit). */
  GlobalTransactionId(String coordinator, String deciderShard, String deciderIncarnation, long deciderXid) {
    if (!isLowerHex(coordinator, 16)) {
      throw new IllegalArgumentException("A coordinator id is 16 lowercase hex digits, was '" + coordinator + "'");
    }
    if (!isShardId(deciderShard)) {
      throw new IllegalArgumentException("Not a shard id: '" + deciderShard + "'");
    }
    if (!isLowerHex(deciderIncarnation, 12)) {
      throw new IllegalArgumentException("An incarnation is 12 lowercase hex digits, was '" + deciderIncarnation + "'");
    }
    this.coordinator = coordinator;
    this.deciderShard = deciderShard;
    this.deciderIncarnation = deciderIncarnation;
    this.deciderXid = deciderXid;
    this.gid = PREFIX + coordinator + ":" + deciderShard + ":" + deciderIncarnation + ":" + Long.toUnsignedString(deciderXid);
    this.sqlLiteral = "'" + gid + "'";
  }

  /** {@code [0-9a-f]{length}}. */
  private static boolean isLowerHex(String s, int length) {
    if (s == null || s.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      char c = s.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  /** {@code [A-Za-z0-9_][A-Za-z0-9_.-]{0,62}}, as in {@link #FORMAT}. */
  private static boolean isShardId(String s) {
    if (s == null || s.isEmpty() || s.length() > 63) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean word = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_';
      if (!word && (i == 0 || c != '.' && c != '-')) {
        return false;
      }
    }
    return true;
  }

  String coordinator() {
    return coordinator;
  }

  String deciderShard() {
    return deciderShard;
  }

  String deciderIncarnation() {
    return deciderIncarnation;
  }

  long deciderXid() {
    return deciderXid;
  }

  /** The id if {@code gid} is exactly of Shardwise's format, else null. */
  static GlobalTransactionId parse(String gid) {
    if (gid == null) {
      return null;
    }
    Matcher m = FORMAT.matcher(gid);
    if (!m.matches()) {
      return null;
    }
    long xid;
    try {
      xid = Long.parseUnsignedLong(m.group(4));
    } catch (NumberFormatException beyond64Bits) {
      return null;
    }
    GlobalTransactionId id = new GlobalTransactionId(m.group(1), m.group(2), m.group(3), xid);
    return id.gid().equals(gid) ? id : null;
  }

  String gid() {
    return gid;
  }

  /** The decider's transaction id as PostgreSQL writes an {@code xid8}. */
  String deciderXidText() {
    return Long.toUnsignedString(deciderXid);
  }

  /**
   * {@code 'sw:...'}, ready for {@code COMMIT PREPARED} (which takes no parameter): built from the
   * validated parts, whose characters need no quoting.
   */
  String sqlLiteral() {
    return sqlLiteral;
  }

  @Override
  public String toString() {
    return gid();
  }

  /** Text read from a shard, made safe for a log line: controls and non-ASCII escaped, at most 200 characters. */
  static String printable(String text) {
    if (text == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length() && i < 200; i++) {
      char c = text.charAt(i);
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
        b.append(c);
      } else {
        b.append(String.format("\\u%04x", (int) c));
      }
    }
    if (text.length() > 200) {
      b.append("...");
    }
    return b.append('"').toString();
  }
}
