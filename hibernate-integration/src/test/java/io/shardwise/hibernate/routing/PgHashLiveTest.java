package io.shardwise.hibernate.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@link PgHash} against a live PostgreSQL, value for value: random values of every key type plus
 * edge cases, sent as one array per batch and hashed by the server with {@code unnest}.
 * The random seed is in every failure message.
 */
@ShardedPostgres(shards = 1)
class PgHashLiveTest {
  private static final int RANDOM = 10_000;
  private static final long SEED = System.nanoTime();

  @Test
  void longs(@Node(shard = 0) DataSource ds) throws SQLException {
    SplittableRandom random = new SplittableRandom(SEED);
    List<Long> values = new ArrayList<>(List.of(0L, 1L, -1L, 2L, -2L, Long.MIN_VALUE, Long.MAX_VALUE,
        Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, (long) Integer.MIN_VALUE, (long) Integer.MAX_VALUE,
        Integer.MIN_VALUE - 1L, Integer.MAX_VALUE + 1L, 1L << 32, -(1L << 32), 0xFFFFFFFFL));
    for (int i = 0; i < RANDOM; i++) {
      // every magnitude, not only huge values
      values.add(random.nextLong() >> random.nextInt(64));
    }
    long seed = random.nextLong();
    check(ds, "bigint", values, "hashint8extended(v, 0)", v -> PgHash.hashLong(v));
    check(ds, "bigint", values, "hashint8extended(v, " + seed + ")", v -> PgHash.hashLong(v, seed));
    check(ds, "bigint", values, "hashint8extended(v, 0)", v -> ShardKeyType.LONG.hash(v));
  }

  @Test
  void ints(@Node(shard = 0) DataSource ds) throws SQLException {
    SplittableRandom random = new SplittableRandom(SEED + 1);
    List<Integer> values = new ArrayList<>(List.of(0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 65535, -65536));
    for (int i = 0; i < RANDOM; i++) {
      values.add(random.nextInt() >> random.nextInt(32));
    }
    long seed = random.nextLong();
    check(ds, "integer", values, "hashint4extended(v, 0)", v -> PgHash.hashInt(v));
    check(ds, "integer", values, "hashint4extended(v, " + seed + ")", v -> PgHash.hashInt(v, seed));
    // an int and the bigint of the same value hash alike, in PostgreSQL and in Java
    check(ds, "integer", values, "hashint8extended(v::bigint, 0)", v -> PgHash.hashLong(v));
  }

  @Test
  void shorts(@Node(shard = 0) DataSource ds) throws SQLException {
    SplittableRandom random = new SplittableRandom(SEED + 2);
    List<Short> values = new ArrayList<>();
    for (int v = Short.MIN_VALUE; v <= Short.MAX_VALUE; v += 1 + random.nextInt(5)) {
      values.add((short) v);
    }
    values.add(Short.MAX_VALUE);
    long seed = random.nextLong();
    check(ds, "smallint", values, "hashint2extended(v, 0)", v -> PgHash.hashShort(v));
    check(ds, "smallint", values, "hashint2extended(v, " + seed + ")", v -> PgHash.hashShort(v, seed));
    check(ds, "smallint", values, "hashint8extended(v::bigint, 0)", v -> ShardKeyType.SHORT.hash(v));
  }

  @Test
  void strings(@Node(shard = 0) DataSource ds) throws SQLException {
    SplittableRandom random = new SplittableRandom(SEED + 3);
    List<String> values = new ArrayList<>(List.of("", "a", "abcdefghijk", "abcdefghijkl", "abcdefghijklm",
        "h\u00e9llo", "\u65e5\u672c\u8a9e", "\ud83d\ude00", "\ud83d\ude00\ud83d\ude01x", "\u00ff\u0100\u07ff\u0800\uffff",
        "\ud800", "x\udc00y", "tenant-42"));
    StringBuilder ascii = new StringBuilder();
    StringBuilder mixed = new StringBuilder();
    for (int n = 1; n <= 300; n++) {
      ascii.append((char) ('a' + n % 26));
      mixed.append(randomChar(random));
      values.add(ascii.toString());
      values.add(mixed.toString());
    }
    for (int i = 0; i < RANDOM; i++) {
      int length = random.nextInt(10) == 0 ? random.nextInt(5000) : random.nextInt(40);
      StringBuilder s = new StringBuilder(length);
      boolean asciiOnly = random.nextBoolean();
      for (int j = 0; j < length; j++) {
        s.append(asciiOnly ? (char) (' ' + random.nextInt(95)) : randomChar(random));
      }
      values.add(s.toString());
    }
    long seed = random.nextLong();
    // Lone surrogates reach the server as '?', as the JDBC driver encodes them; the text[] literal
    // carries exactly what getBytes(UTF_8) produces.
    check(ds, "text", values, "hashtextextended(v, 0)", v -> PgHash.hashText(v));
    check(ds, "text", values, "hashtextextended(v, " + seed + ")", v -> PgHash.hashText(v, seed));
    check(ds, "text", values, ShardKeyType.STRING.sqlHash("v"), v -> ShardKeyType.STRING.hash(v));
  }

  @Test
  void uuids(@Node(shard = 0) DataSource ds) throws SQLException {
    SplittableRandom random = new SplittableRandom(SEED + 4);
    List<UUID> values = new ArrayList<>(List.of(new UUID(0, 0), new UUID(-1, -1), new UUID(Long.MIN_VALUE, 0),
        new UUID(0, Long.MIN_VALUE), new UUID(1, 1), UUID.fromString("123e4567-e89b-12d3-a456-426614174000")));
    for (int i = 0; i < RANDOM; i++) {
      values.add(new UUID(random.nextLong(), random.nextLong()));
    }
    long seed = random.nextLong();
    check(ds, "uuid", values, "uuid_hash_extended(v, 0)", v -> PgHash.hashUuid(v));
    check(ds, "uuid", values, "uuid_hash_extended(v, " + seed + ")", v -> PgHash.hashUuid(v, seed));
  }

  @Test
  void sqlBucketExpressionAgreesWithJava(@Node(shard = 0) DataSource ds) throws SQLException {
    SplittableRandom random = new SplittableRandom(SEED + 5);
    List<Long> longs = new ArrayList<>(List.of(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE));
    List<String> texts = new ArrayList<>();
    List<UUID> uuids = new ArrayList<>();
    for (int i = 0; i < RANDOM; i++) {
      longs.add(random.nextLong() >> random.nextInt(64));
      texts.add("tenant-" + random.nextInt() + "-\u00e9");
      uuids.add(new UUID(random.nextLong(), random.nextLong()));
    }
    for (int buckets : new int[] {1, 2, 1024, 1000, 4096, 7}) {
      BucketStrategy strategy = new BucketStrategy(ShardMap.evenlyAssigned(1,
          BucketStrategyPropertyTest.shards(1, 1), buckets));
      check(ds, "bigint", longs, strategy.sqlBucket(ShardKeyType.LONG, "v") + "::bigint",
          v -> (long) strategy.bucketOfKey(v));
      check(ds, "text", texts, strategy.sqlBucket(ShardKeyType.STRING, "v") + "::bigint",
          v -> (long) strategy.bucketOfKey(v));
      check(ds, "uuid", uuids, strategy.sqlBucket(ShardKeyType.UUID, "v") + "::bigint",
          v -> (long) strategy.bucketOfKey(v));
    }
  }

  @Test
  void goldenTableCameFromPostgres(@Node(shard = 0) DataSource ds) throws SQLException {
    for (RoutingGolden.Entry e : RoutingGolden.ENTRIES) {
      ShardKeyType type = ShardKeyType.of(e.key());
      try (Connection c = ds.getConnection();
           PreparedStatement ps = c.prepareStatement("SELECT " + type.sqlHash("?::" + type.sqlType()) + ", "
               + BucketStrategy.sqlBucket(type, "?::" + type.sqlType(), 1024))) {
        ps.setObject(1, e.key());
        ps.setObject(2, e.key());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          assertEquals(e.hash(), rs.getLong(1), "hash of " + e.key());
          assertEquals(e.bucket(), rs.getInt(2), "bucket of " + e.key());
        }
      }
    }
  }

  private static char randomChar(SplittableRandom random) {
    return switch (random.nextInt(6)) {
      case 0 -> (char) (' ' + random.nextInt(95));
      case 1 -> (char) (0x80 + random.nextInt(0x780)); // two UTF-8 bytes
      case 2 -> (char) (0x800 + random.nextInt(0xD800 - 0x800)); // three bytes
      case 3 -> (char) (0xE000 + random.nextInt(0x10000 - 0xE000)); // three bytes, above the surrogates
      case 4 -> (char) (0xD800 + random.nextInt(0x800)); // a surrogate, usually unpaired
      default -> (char) (1 + random.nextInt(0x7F)); // any ASCII but NUL, which text cannot hold
    };
  }

  /**
   * Sends the values as one array, lets PostgreSQL evaluate {@code expression} over {@code v} for
   * each in order, and compares with Java.
   */
  private static <T> void check(DataSource ds, String sqlType, List<T> values, String expression,
      Function<T, Long> java) throws SQLException {
    String sql = "SELECT " + expression + " FROM unnest(?::" + sqlType + "[]) WITH ORDINALITY AS t(v, i) ORDER BY i";
    List<Long> fromServer = new ArrayList<>(values.size());
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      Object[] elements = values.stream().map(v -> v instanceof UUID ? v.toString() : v).toArray();
      String arrayType = switch (sqlType) {
        case "bigint" -> "int8";
        case "integer" -> "int4";
        case "smallint" -> "int2";
        default -> "text";
      };
      Array array = c.createArrayOf(arrayType, elements);
      ps.setArray(1, array);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          fromServer.add(rs.getLong(1));
        }
      }
      array.free();
    }
    assertEquals(values.size(), fromServer.size(), sql);
    int mismatches = 0;
    StringBuilder first = new StringBuilder();
    for (int i = 0; i < values.size(); i++) {
      long expected = fromServer.get(i);
      long actual = java.apply(values.get(i));
      if (expected != actual && mismatches++ < 5) {
        first.append("\n  ").append(describe(values.get(i))).append(": PostgreSQL ").append(expected)
            .append(", Java ").append(actual);
      }
    }
    assertEquals(0, mismatches, mismatches + " of " + values.size() + " values differ for " + expression
        + " (random seed " + SEED + "):" + first);
  }

  private static String describe(Object value) {
    if (value instanceof String s) {
      return "'" + (s.length() > 40 ? s.substring(0, 40) + "...' (" + s.length() + " chars)" : s + "'")
          + " " + s.codePoints().limit(8).mapToObj(Integer::toHexString).toList();
    }
    return String.valueOf(value);
  }
}
