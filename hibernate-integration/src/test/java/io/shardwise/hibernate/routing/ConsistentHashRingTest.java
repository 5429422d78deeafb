package io.shardwise.hibernate.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Balance and movement of the consistent-hash ring; the numbers are printed for docs/benchmarks.md. */
class ConsistentHashRingTest {

  @ParameterizedTest(name = "{0} vnodes")
  @ValueSource(ints = {100, 256, 1000})
  void balanceAndMovementOnAdd(int vnodes) {
    List<ShardDescriptor> eight = BucketStrategyPropertyTest.shards(8, 1);
    ConsistentHashRing ring = new ConsistentHashRing(eight, vnodes);
    Map<String, Integer> load = BucketStrategyPropertyTest.load(ring);
    double balance = BucketStrategyPropertyTest.maxOverMean(load);

    List<ShardDescriptor> nine = new ArrayList<>(eight);
    nine.add(ShardDescriptor.of("new", "jdbc:postgresql://new/db"));
    ConsistentHashRing grown = new ConsistentHashRing(nine, vnodes);
    int moved = 0;
    int keys = 1_000_000;
    for (long key = 1; key <= keys; key++) {
      String was = ring.shardFor(key);
      String is = grown.shardFor(key);
      if (was != is) {
        moved++;
        assertEquals("new", is, "on a ring a key may only move to the new shard, key " + key);
      }
    }
    double fraction = (double) moved / keys;
    System.out.printf("ring, 8 shards, %d vnodes: max/mean load %.4f; adding a 9th moved %.4f of keys "
        + "(ideal %.4f, ratio %.3f)%n", vnodes, balance, fraction, 1 / 9.0, fraction * 9);
    assertEquals(8 * vnodes, ring.pointCount());
    // Loose bounds: the ring's spread shrinks like 1/sqrt(vnodes); the printed numbers are the result.
    assertTrue(balance < 1 + 3.0 / Math.sqrt(vnodes), "max/mean " + balance + " " + load);
    assertTrue(fraction > 0.5 / 9 && fraction < 1.5 / 9, "moved fraction " + fraction);
  }

  @Test
  void weightTwoShardGetsAboutTwiceTheKeys() {
    List<ShardDescriptor> shards = new ArrayList<>(BucketStrategyPropertyTest.shards(3, 1));
    shards.add(new ShardDescriptor("big", "jdbc:postgresql://big/db", List.of(), 2, ShardState.ACTIVE));
    ConsistentHashRing ring = new ConsistentHashRing(shards, 1000);
    Map<String, Integer> load = BucketStrategyPropertyTest.load(ring);
    double ratio = load.get("big") / (1_000_000 / 5.0);
    System.out.printf("ring, 1000 vnodes, weights 1,1,1,2: weight-2 shard gets %.4f x the per-weight share%n", ratio);
    assertTrue(Math.abs(ratio - 2) < 0.15, "load " + load);
  }

  @Test
  void sameRingWhateverTheOrderOfShards() {
    List<ShardDescriptor> shards = BucketStrategyPropertyTest.shards(5, 1);
    List<ShardDescriptor> reversed = new ArrayList<>(shards);
    java.util.Collections.reverse(reversed);
    ConsistentHashRing a = new ConsistentHashRing(shards, 64);
    ConsistentHashRing b = new ConsistentHashRing(reversed, 64);
    for (long key = -5000; key < 5000; key++) {
      assertEquals(a.shardFor(key), b.shardFor(key), "key " + key);
    }
    assertEquals(a.shardFor("tenant-1"), b.shardFor("tenant-1"));
    assertEquals(a.shardFor(7), a.shardFor(7L), "Integer and Long keys of one value route alike");
  }

  @Test
  void ownerIsTheFirstPointAtOrAfterTheHashWrappingAround() {
    ConsistentHashRing ring = new ConsistentHashRing(BucketStrategyPropertyTest.shards(1, 1), 1);
    long point = PgHash.hashText("s0#0");
    assertEquals("s0", ring.ownerOfHash(point));
    assertEquals("s0", ring.ownerOfHash(Long.MAX_VALUE));
    assertEquals("s0", ring.ownerOfHash(Long.MIN_VALUE));

    ConsistentHashRing two = new ConsistentHashRing(BucketStrategyPropertyTest.shards(2, 1), 1);
    long p0 = PgHash.hashText("s0#0");
    long p1 = PgHash.hashText("s1#0");
    long low = Math.min(p0, p1);
    String lowOwner = low == p0 ? "s0" : "s1";
    String highOwner = low == p0 ? "s1" : "s0";
    assertEquals(lowOwner, two.ownerOfHash(low));
    assertEquals(highOwner, two.ownerOfHash(low + 1));
    assertEquals(lowOwner, two.ownerOfHash(Math.max(p0, p1) + 1), "past the last point wraps to the first");
  }

  @Test
  void badVnodeCountsAreRejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new ConsistentHashRing(BucketStrategyPropertyTest.shards(2, 1), 0));
    assertTrue(e.getMessage().contains("was 0") && e.getMessage().contains("256"), e.getMessage());
  }
}
