package io.shardwise.hibernate.routing;

import java.util.UUID;

/**
 * PostgreSQL's 64-bit "extended" hash functions, computed in Java with exactly the results the
 * server returns, so that the bucket of a key can be computed by the router and, for the same row,
 * by SQL inside PostgreSQL (backfills, checksums, publication row filters).
 *
 * <table>
 *   <caption>Java method and the PostgreSQL function it reproduces</caption>
 *   <tr><th>Java</th><th>PostgreSQL</th></tr>
 *   <tr><td>{@link #hashLong(long, long)}</td><td>{@code hashint8extended(bigint, seed)}</td></tr>
 *   <tr><td>{@link #hashInt(int, long)}</td><td>{@code hashint4extended(integer, seed)}</td></tr>
 *   <tr><td>{@link #hashShort(short, long)}</td><td>{@code hashint2extended(smallint, seed)}</td></tr>
 *   <tr><td>{@link #hashText(CharSequence, long)}</td><td>{@code hashtextextended(text, seed)} under a
 *       deterministic collation</td></tr>
 *   <tr><td>{@link #hashUuid(UUID, long)}</td><td>{@code uuid_hash_extended(uuid, seed)}</td></tr>
 * </table>
 *
 * <p>The result is the signed {@code bigint} PostgreSQL prints. Integral values hash alike whatever
 * their width: {@code hashLong(7) == hashInt(7) == hashShort(7)}, as in PostgreSQL, where
 * {@code hashint8extended} folds the high half of the value into the low half so that a
 * {@code bigint} within {@code integer} range hashes like that {@code integer}. Shardwise routes
 * with seed {@code 0}; the overloads without a seed use it.
 *
 * <p>The algorithm is Bob Jenkins' lookup3 mixing as used by PostgreSQL ({@code hash_bytes_extended}
 * and {@code hash_bytes_uint32_extended} in {@code src/common/hashfn.c}), reading the key's bytes as
 * little-endian 32-bit words. PostgreSQL reads them in native byte order, so for text and uuid the
 * values match servers on little-endian hardware (x86-64, arm64), which is every supported
 * production platform in practice; the integer functions are byte-order independent.
 *
 * <p>The integer methods do not allocate. {@link #hashText} encodes the string to UTF-8 on the fly
 * (two passes over its chars, no byte array); unpaired surrogates count as {@code '?'}, the byte
 * the PostgreSQL JDBC driver sends for them.
 */
public final class PgHash {

  /** lookup3's golden-ratio start value plus the constant PostgreSQL adds to it. */
  private static final int INIT = 0x9e3779b9 + 3923095;

  private PgHash() {
  }

  /** {@code hashint8extended(value, 0)}. */
  public static long hashLong(long value) {
    return hashLong(value, 0);
  }

  /** {@code hashint8extended(value, seed)}. */
  public static long hashLong(long value, long seed) {
    int lo = (int) value;
    int hi = (int) (value >>> 32);
    lo ^= value >= 0 ? hi : ~hi;
    return hashUint32(lo, seed);
  }

  /** {@code hashint4extended(value, 0)}; equals {@link #hashLong(long)} of the same value. */
  public static long hashInt(int value) {
    return hashUint32(value, 0);
  }

  /** {@code hashint4extended(value, seed)}. */
  public static long hashInt(int value, long seed) {
    return hashUint32(value, seed);
  }

  /** {@code hashint2extended(value, 0)}; equals {@link #hashLong(long)} of the same value. */
  public static long hashShort(short value) {
    return hashUint32(value, 0);
  }

  /** {@code hashint2extended(value, seed)}: the short is sign-extended to 32 bits first. */
  public static long hashShort(short value, long seed) {
    return hashUint32(value, seed);
  }

  /** {@code hashtextextended(value, 0)} for a deterministic collation: the hash of its UTF-8 bytes. */
  public static long hashText(CharSequence value) {
    return hashText(value, 0);
  }

  /** {@code hashtextextended(value, seed)} for a deterministic collation. */
  public static long hashText(CharSequence value, long seed) {
    int n = value.length();
    int len = utf8Length(value, n);
    Lookup3 h = new Lookup3(len, seed);
    for (int i = 0; i < n; i++) {
      char ch = value.charAt(i);
      if (ch < 0x80) {
        h.add(ch);
      } else if (ch < 0x800) {
        h.add(0xC0 | ch >> 6);
        h.add(0x80 | ch & 0x3F);
      } else if (Character.isSurrogate(ch)) {
        char low;
        if (Character.isHighSurrogate(ch) && i + 1 < n && Character.isLowSurrogate(low = value.charAt(i + 1))) {
          int cp = Character.toCodePoint(ch, low);
          h.add(0xF0 | cp >> 18);
          h.add(0x80 | cp >> 12 & 0x3F);
          h.add(0x80 | cp >> 6 & 0x3F);
          h.add(0x80 | cp & 0x3F);
          i++;
        } else {
          h.add('?');
        }
      } else {
        h.add(0xE0 | ch >> 12);
        h.add(0x80 | ch >> 6 & 0x3F);
        h.add(0x80 | ch & 0x3F);
      }
    }
    return h.finish();
  }

  /** {@code uuid_hash_extended(value, 0)}: the hash of the uuid's 16 bytes in network order. */
  public static long hashUuid(UUID value) {
    return hashUuid(value, 0);
  }

  /** {@code uuid_hash_extended(value, seed)}. */
  public static long hashUuid(UUID value, long seed) {
    long msb = value.getMostSignificantBits();
    long lsb = value.getLeastSignificantBits();
    Lookup3 h = new Lookup3(16, seed);
    // The bytes are msb then lsb, each big-endian; lookup3 reads them as little-endian words.
    h.addBlock(Integer.reverseBytes((int) (msb >>> 32)), Integer.reverseBytes((int) msb),
        Integer.reverseBytes((int) (lsb >>> 32)));
    h.addWordToTail(Integer.reverseBytes((int) lsb));
    return h.finish();
  }

  /** {@code hash_any_extended(bytes, seed)}: PostgreSQL's hash of an arbitrary byte string. */
  public static long hashBytes(byte[] bytes, long seed) {
    Lookup3 h = new Lookup3(bytes.length, seed);
    for (byte b : bytes) {
      h.add(b & 0xFF);
    }
    return h.finish();
  }

  /** The number of bytes of the UTF-8 form (unpaired surrogates as one byte). */
  static int utf8Length(CharSequence s, int n) {
    int len = n;
    for (int i = 0; i < n; i++) {
      char ch = s.charAt(i);
      if (ch >= 0x80) {
        if (ch < 0x800) {
          len += 1;
        } else if (Character.isHighSurrogate(ch) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
          len += 2; // four bytes for two chars
          i++;
        } else if (!Character.isSurrogate(ch)) {
          len += 2;
        }
      }
    }
    return len;
  }

  /** {@code hash_bytes_uint32_extended}: one 32-bit word, no allocation. */
  static long hashUint32(int k, long seed) {
    int a = INIT + 4;
    int b = a;
    int c = a;
    if (seed != 0) {
      a += (int) (seed >>> 32);
      b += (int) seed;
      // mix(a, b, c)
      a -= c; a ^= Integer.rotateLeft(c, 4); c += b;
      b -= a; b ^= Integer.rotateLeft(a, 6); a += c;
      c -= b; c ^= Integer.rotateLeft(b, 8); b += a;
      a -= c; a ^= Integer.rotateLeft(c, 16); c += b;
      b -= a; b ^= Integer.rotateLeft(a, 19); a += c;
      c -= b; c ^= Integer.rotateLeft(b, 4); b += a;
    }
    a += k;
    // final(a, b, c)
    c ^= b; c -= Integer.rotateLeft(b, 14);
    a ^= c; a -= Integer.rotateLeft(c, 11);
    b ^= a; b -= Integer.rotateLeft(a, 25);
    c ^= b; c -= Integer.rotateLeft(b, 16);
    a ^= c; a -= Integer.rotateLeft(c, 4);
    b ^= a; b -= Integer.rotateLeft(a, 14);
    c ^= b; c -= Integer.rotateLeft(b, 24);
    return (long) b << 32 | c & 0xFFFFFFFFL;
  }

  /**
   * The state of {@code hash_bytes_extended} fed one byte at a time. Whole 12-byte blocks are
   * mixed as they fill; a final partial block (at most 11 bytes) is added with its third word
   * shifted up one byte, because lookup3 keeps the lowest byte of {@code c} for the length. A
   * length that is a multiple of 12 leaves no tail and goes straight to the final mix.
   *
   * <p>Short-lived and confined to one call, so the JIT normally replaces it by locals.
   */
  private static final class Lookup3 {
    private int a;
    private int b;
    private int c;
    /** Bytes of the current block received so far, 0..11. */
    private int pos;
    private int w0;
    private int w1;
    private int w2;

    Lookup3(int len, long seed) {
      a = b = c = INIT + len;
      if (seed != 0) {
        a += (int) (seed >>> 32);
        b += (int) seed;
        mix();
      }
    }

    void add(int unsignedByte) {
      int shift = (pos & 3) << 3;
      switch (pos >> 2) {
        case 0 -> w0 |= unsignedByte << shift;
        case 1 -> w1 |= unsignedByte << shift;
        default -> w2 |= unsignedByte << shift;
      }
      if (++pos == 12) {
        addBlock(w0, w1, w2);
        w0 = w1 = w2 = 0;
      }
    }

    /** A whole 12-byte block as three little-endian words; only when no partial block is pending. */
    void addBlock(int x, int y, int z) {
      a += x;
      b += y;
      c += z;
      mix();
      pos = 0;
    }

    /** A four-byte tail, only at a block boundary. */
    void addWordToTail(int x) {
      w0 = x;
      pos = 4;
    }

    long finish() {
      if (pos > 0) {
        a += w0;
        b += w1;
        c += w2 << 8;
      }
      c ^= b; c -= Integer.rotateLeft(b, 14);
      a ^= c; a -= Integer.rotateLeft(c, 11);
      b ^= a; b -= Integer.rotateLeft(a, 25);
      c ^= b; c -= Integer.rotateLeft(b, 16);
      a ^= c; a -= Integer.rotateLeft(c, 4);
      b ^= a; b -= Integer.rotateLeft(a, 14);
      c ^= b; c -= Integer.rotateLeft(b, 24);
      return (long) b << 32 | c & 0xFFFFFFFFL;
    }

    private void mix() {
      a -= c; a ^= Integer.rotateLeft(c, 4); c += b;
      b -= a; b ^= Integer.rotateLeft(a, 6); a += c;
      c -= b; c ^= Integer.rotateLeft(b, 8); b += a;
      a -= c; a ^= Integer.rotateLeft(c, 16); c += b;
      b -= a; b ^= Integer.rotateLeft(a, 19); a += c;
      c -= b; c ^= Integer.rotateLeft(b, 4); b += a;
    }
  }
}
