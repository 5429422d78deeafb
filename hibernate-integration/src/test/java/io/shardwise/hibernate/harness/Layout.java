package io.shardwise.hibernate.harness;

import io.shardwise.hibernate.ShardwiseSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * One cell of the core test matrix: a sharding strategy over {@code shards} shards named
 * {@code shard0 .. shard<n-1>}, placed on the first {@code shards} primaries of a testkit topology.
 * {@link #all()} is the matrix: every strategy at 1, 2, 3 and 5 shards (under {@code -Plong}; a cover of
 * every strategy and every count by default).
 *
 * <p>The strategies are configured so that the keys the tests use (small merchant and user ids,
 * and a few large ones) spread over every shard of the cell:
 * <ul>
 *   <li>{@code bucket}: the default (no strategy property), 1024 buckets dealt evenly;</li>
 *   <li>{@code ring}: consistent hashing with the default virtual nodes;</li>
 *   <li>{@code range}: keys below 10 on shard0, then ten keys per shard, the rest on the last shard;</li>
 *   <li>{@code directory}: keys 1..20 listed, dealt out backwards ({@code k -> shard((n - k % n) % n)}), 42
 *       on the last shard, every other key through the bucket fallback.</li>
 * </ul>
 */
public record Layout(Strategy strategy, int shards) {
  /** The shard counts of the matrix. */
  public static final int[] SHARD_COUNTS = {1, 2, 3, 5};

  /** The most shards any cell uses: the topology the matrix runs on needs this many primaries. */
  public static final int MAX_SHARDS = 5;

  /** The strategies of the matrix. */
  public enum Strategy { BUCKET, RING, RANGE, DIRECTORY }

  public Layout {
    if (shards < 1 || shards > MAX_SHARDS) {
      throw new IllegalArgumentException("A layout has 1 to " + MAX_SHARDS + " shards, not " + shards);
    }
  }

  /**
   * The cells the matrix runs: every strategy at each shard count with {@code -Dmatrix.full=true}
   * (the {@code long} profile); otherwise a cover in which every strategy and every shard count
   * appears — each strategy at 5 shards, and 1, 2 and 3 shards each under another strategy.
   */
  public static Stream<Layout> all() {
    if (Boolean.getBoolean("matrix.full")) {
      return Stream.of(Strategy.values())
          .flatMap(strategy -> IntStream.of(SHARD_COUNTS).mapToObj(n -> new Layout(strategy, n)));
    }
    return Stream.of(new Layout(Strategy.BUCKET, 1), new Layout(Strategy.RING, 2), new Layout(Strategy.RANGE, 3),
        new Layout(Strategy.DIRECTORY, 2), new Layout(Strategy.BUCKET, 5), new Layout(Strategy.RING, 5),
        new Layout(Strategy.RANGE, 5), new Layout(Strategy.DIRECTORY, 5));
  }

  /** {@code shard<index>}, the id of the shard on the topology's primary {@code index}. */
  public static String shardId(int index) {
    return "shard" + index;
  }

  /** The index of the topology primary behind {@code shardId}. */
  public static int indexOf(String shardId) {
    return Integer.parseInt(shardId.substring("shard".length()));
  }

  public List<String> shardIds() {
    return IntStream.range(0, shards).mapToObj(Layout::shardId).toList();
  }

  /** The {@code shardwise.*} strategy properties of this cell. */
  public Map<String, String> properties() {
    Map<String, String> props = new LinkedHashMap<>();
    switch (strategy) {
      case BUCKET -> {
        // the default: no property, exactly what an application that names no strategy gets
      }
      case RING -> props.put(ShardwiseSettings.STRATEGY, "ring");
      case RANGE -> {
        props.put(ShardwiseSettings.STRATEGY, "range");
        for (int i = 0; i < shards; i++) {
          String lower = i == 0 ? "" : Integer.toString(i * 10);
          String upper = i == shards - 1 ? "" : Integer.toString((i + 1) * 10);
          // one shard: two ranges, as a range needs at least one bound
          String ranges = shards == 1 ? "..10,10.." : lower + ".." + upper;
          props.put(ShardwiseSettings.RANGE_PREFIX + shardId(i), ranges);
        }
      }
      case DIRECTORY -> {
        props.put(ShardwiseSettings.STRATEGY, "directory");
        props.put(ShardwiseSettings.FALLBACK, "bucket");
        for (int k = 1; k <= 20; k++) {
          props.put(ShardwiseSettings.DIRECTORY_PREFIX + k, shardId((shards - k % shards) % shards));
        }
        props.put(ShardwiseSettings.DIRECTORY_PREFIX + 42, shardId(shards - 1));
      }
    }
    return props;
  }

  @Override
  public String toString() {
    return strategy.name().toLowerCase(java.util.Locale.ROOT) + " x " + shards + (shards == 1 ? " shard" : " shards");
  }
}
