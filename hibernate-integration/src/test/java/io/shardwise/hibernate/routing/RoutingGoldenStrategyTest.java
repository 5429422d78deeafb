package io.shardwise.hibernate.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Routing is stable across JVMs and releases: hashes and buckets equal the values PostgreSQL gave. */
class RoutingGoldenStrategyTest {

  @Test
  void hashesAndBucketsMatchTheGoldenTable() {
    ShardMap map = ShardMap.evenlyAssigned(1, shards(4), 1024);
    BucketStrategy strategy = new BucketStrategy(map);
    for (RoutingGolden.Entry e : RoutingGolden.ENTRIES) {
      long hash = ShardKeyType.of(e.key()).hash(e.key());
      assertEquals(e.hash(), hash, () -> "hash of " + describe(e.key()));
      assertEquals(e.bucket(), strategy.bucketOf(hash), () -> "bucket of " + describe(e.key()));
      assertEquals(e.bucket(), BucketStrategy.bucketOf(hash, 1024), () -> "general bucketOf of " + describe(e.key()));
      assertEquals(map.ownerOf(e.bucket()), strategy.shardFor(e.key()), () -> "shard of " + describe(e.key()));
      if (e.key() instanceof Number n) {
        assertEquals(map.ownerOf(e.bucket()), strategy.shardFor(n.longValue()), () -> "long path " + e.key());
      }
    }
  }

  @Test
  void integralKeysHashByValueWhateverTheirJavaType() {
    for (int v : new int[] {0, 1, -1, 7, 32767, -32768}) {
      long h = PgHash.hashLong(v);
      assertEquals(h, PgHash.hashInt(v), "int " + v);
      assertEquals(h, PgHash.hashShort((short) v), "short " + v);
      assertEquals(h, ShardKeyType.INT.hash(v), "boxed Integer " + v);
      assertEquals(h, ShardKeyType.LONG.hash((short) v), "boxed Short via LONG " + v);
    }
  }

  static List<ShardDescriptor> shards(int n) {
    List<ShardDescriptor> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(ShardDescriptor.of("s" + i, "jdbc:postgresql://h" + i + "/db"));
    }
    return list;
  }

  private static String describe(Object key) {
    return key.getClass().getSimpleName() + " '" + key + "'";
  }
}
