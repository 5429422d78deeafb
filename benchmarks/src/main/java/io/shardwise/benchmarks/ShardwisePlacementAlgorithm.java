package io.shardwise.benchmarks;

import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import org.apache.shardingsphere.sharding.api.sharding.standard.PreciseShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.RangeShardingValue;
import org.apache.shardingsphere.sharding.api.sharding.standard.StandardShardingAlgorithm;

/**
 * A ShardingSphere sharding algorithm that places a key where Shardwise does, so that the
 * ShardingSphere leg of {@link PointLookupWorkload} reads the very rows the Shardwise leg reads.
 *
 * <p>It rebuilds the static shard map that {@code Shardwise.configure().shard(...)} builds (the
 * shards in the order given, weight 1, {@link ShardMap#DEFAULT_BUCKETS} buckets, version 1) and
 * asks Shardwise's {@link BucketStrategy} for the owner. ShardingSphere's data source names must
 * be the Shardwise shard ids. The workload checks every loaded key against
 * {@code ShardedSessions.shardFor} before it measures anything.
 *
 * <p>Configured through ShardingSphere's {@code CLASS_BASED} algorithm with {@code strategy =
 * STANDARD}, {@code algorithmClassName} = this class and {@value #SHARDS} = the comma-separated
 * shard ids.
 */
public final class ShardwisePlacementAlgorithm implements StandardShardingAlgorithm<Comparable<?>> {
  /** The property that lists the shard ids, in Shardwise's configuration order. */
  public static final String SHARDS = "shardwise-shards";

  private BucketStrategy strategy;

  @Override
  public void init(Properties props) {
    String ids = props.getProperty(SHARDS);
    if (ids == null || ids.isBlank()) {
      throw new IllegalArgumentException("ShardwisePlacementAlgorithm needs the property '" + SHARDS
          + "': the Shardwise shard ids in configuration order, e.g. shard0,shard1");
    }
    List<ShardDescriptor> shards = new ArrayList<>();
    for (String id : ids.split(",")) {
      // Only the ids and the order place buckets; the URL is never used here.
      shards.add(ShardDescriptor.of(id.trim(), "jdbc:postgresql://placement-only/" + id.trim()));
    }
    strategy = new BucketStrategy(ShardMap.evenlyAssigned(1, shards, ShardMap.DEFAULT_BUCKETS));
  }

  /** The shard that owns {@code key}, exactly as this algorithm answers ShardingSphere. */
  public String shardFor(Object key) {
    return strategy.shardFor(key);
  }

  @Override
  public String doSharding(Collection<String> availableTargetNames, PreciseShardingValue<Comparable<?>> value) {
    String shard = strategy.shardFor(value.getValue());
    if (!availableTargetNames.contains(shard)) {
      throw new IllegalStateException("Key " + value.getValue() + " of " + value.getLogicTableName() + " belongs to '"
          + shard + "', which is not one of ShardingSphere's data sources " + availableTargetNames
          + ": name the data sources after the Shardwise shard ids");
    }
    return shard;
  }

  /** A range of ids can live on any shard: every shard is a candidate. */
  @Override
  public Collection<String> doSharding(Collection<String> availableTargetNames,
      RangeShardingValue<Comparable<?>> value) {
    return availableTargetNames;
  }

  @Override
  public String getType() {
    return "SHARDWISE_PLACEMENT";
  }
}
