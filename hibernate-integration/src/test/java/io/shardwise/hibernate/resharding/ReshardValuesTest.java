package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardKeyType;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The values of the resharding API and the map's read owners, without a database. */
class ReshardValuesTest {

  @Test
  void bucketRangesRoundTripAndRefuseNonsense() {
    assertEquals(Set.of(0, 1, 2, 5, 9, 10), BucketRanges.parse("0-2, 5,9-10"));
    assertEquals("0-2,5,9-10", BucketRanges.format(List.of(10, 9, 5, 2, 1, 0)));
    var e = assertThrows(IllegalArgumentException.class, () -> BucketRanges.parse("0-2,x"));
    assertTrue(e.getMessage().contains("'x'"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> BucketRanges.parse("5-2"));
    assertThrows(IllegalArgumentException.class, () -> BucketRanges.parse(" , "));
  }

  @Test
  void tablesParseFromTheCommandLineForm() {
    ReshardTable orders = ReshardTable.parse("purchase_order:merchant_id:long");
    assertEquals(ReshardTable.sharded("purchase_order", "merchant_id", ShardKeyType.LONG), orders);
    assertEquals("purchase_order:merchant_id:long", orders.spec());
    assertTrue(ReshardTable.parse("country").isReference());
    assertEquals(ShardKeyType.UUID, ReshardTable.parse("t:k:uuid").keyType());
    var e = assertThrows(IllegalArgumentException.class, () -> ReshardTable.parse("t:k:float"));
    assertTrue(e.getMessage().contains("long, int, short, string or uuid"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ReshardTable.parse("t;drop table x:k:long"));
  }

  @Test
  void aRequestNeedsTwoShardsAndBuckets() {
    assertThrows(IllegalArgumentException.class, () -> ReshardRequest.move("s0", "s0", List.of(1), List.of()));
    assertThrows(IllegalArgumentException.class, () -> ReshardRequest.move("s0", "s1", List.of(), List.of()));
    assertThrows(IllegalArgumentException.class, () -> new ReshardRequest("s0", "s1", new java.util.TreeSet<>(List.of(1)),
        List.of(), ShardDescriptor.of("s2", "jdbc:postgresql://x/y")));
  }

  @Test
  void progressBarShowsRateEtaAndLag() {
    ReshardProgress p = new ReshardProgress("mv1", ReshardPhase.COPYING, "copy", 500, 2000, 250, 2048, 12, null);
    assertEquals(6, p.etaSeconds());
    String bar = p.bar(10);
    assertTrue(bar.startsWith("copy [##........]  25% 500/2,000"), bar);
    assertTrue(bar.contains("250/s") && bar.contains("ETA 0:06") && bar.contains("lag 2.0 KiB / 12 ms"), bar);
    assertEquals(-1, new ReshardProgress("mv1", ReshardPhase.COPYING, "copy", 5, -1, 0, -1, -1, null).etaSeconds());
  }

  @Test
  void readsOfABucketCanBeSwitchedApartFromItsWrites() {
    List<ShardDescriptor> shards = List.of(ShardDescriptor.of("s0", "jdbc:postgresql://a/b"),
        ShardDescriptor.of("s1", "jdbc:postgresql://c/d"));
    ShardMap plain = ShardMap.evenlyAssigned(1, shards, 8);
    assertFalse(plain.hasSwitchedReads());
    String[] readers = new String[8];
    readers[0] = "s1";
    ShardMap switched = new ShardMap(2, shards, plain.bucketOwnersCopy(), readers);
    assertTrue(switched.hasSwitchedReads());
    assertEquals("s0", switched.ownerOf(0));
    assertEquals("s1", switched.readOwnerOf(0));
    assertEquals("s0", switched.readOwnerOf(1));
    BucketStrategy strategy = new BucketStrategy(switched);
    for (long key = 0; key < 500; key++) {
      int bucket = strategy.bucketOfKey(key);
      assertEquals(bucket == 0 ? "s1" : strategy.shardFor(key), strategy.readShardFor(key), "key " + key);
    }
    String[] unknown = new String[8];
    unknown[3] = "s9";
    assertThrows(IllegalArgumentException.class, () -> new ShardMap(2, shards, plain.bucketOwnersCopy(), unknown));
  }
}
