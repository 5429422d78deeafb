package io.shardwise.hibernate.routing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * Builds a {@link ShardingStrategy} from configuration properties. Every problem is reported at
 * build time with the property at fault and how to fix it.
 *
 * <table>
 *   <caption>Properties</caption>
 *   <tr><th>Property</th><th>Meaning</th></tr>
 *   <tr><td>{@code shardwise.strategy}</td><td>{@code bucket} (default), {@code ring}, {@code range} or
 *       {@code directory}</td></tr>
 *   <tr><td>{@code shardwise.ring.vnodes}</td><td>ring: virtual nodes per unit of shard weight, default
 *       256</td></tr>
 *   <tr><td>{@code shardwise.range.<shardId>}</td><td>range: the keys of that shard, {@code lower..upper}
 *       (lower inclusive, upper exclusive); {@code lower..} is unbounded above, {@code ..upper}
 *       unbounded below; several ranges separated by commas</td></tr>
 *   <tr><td>{@code shardwise.directory.<key>}</td><td>directory: the shard of that key</td></tr>
 *   <tr><td>{@code shardwise.fallback}</td><td>directory: {@code none} (default, unlisted keys are
 *       rejected), {@code bucket} or {@code ring}</td></tr>
 * </table>
 *
 * <pre>{@code
 * shardwise.strategy=directory
 * shardwise.directory.42=tenant-42
 * shardwise.fallback=bucket
 * }</pre>
 *
 * <p>Shard ids must be shards of the {@link ShardMap}. Directory keys are typed by the entity's
 * {@link ShardKeyType} when given; otherwise an integer literal is an integral key, a UUID literal
 * a UUID and anything else a String.
 */
public final class ShardingStrategies {
  public static final String STRATEGY = "shardwise.strategy";
  public static final String RING_VNODES = "shardwise.ring.vnodes";
  public static final String RANGE_PREFIX = "shardwise.range.";
  public static final String DIRECTORY_PREFIX = "shardwise.directory.";
  public static final String FALLBACK = "shardwise.fallback";

  private ShardingStrategies() {
  }

  /** {@link #fromProperties(Map, ShardMap, ShardKeyType)} with directory keys typed by their form. */
  public static ShardingStrategy fromProperties(Map<String, String> props, ShardMap map) {
    return fromProperties(props, map, null);
  }

  /**
   * The strategy the properties describe, over the shards of {@code map}.
   *
   * @param keyType the type of the shard key, used to read directory keys; {@code null} to infer it
   * @throws IllegalArgumentException naming the property at fault and the fix
   */
  public static ShardingStrategy fromProperties(Map<String, String> props, ShardMap map, ShardKeyType keyType) {
    String kind = props.getOrDefault(STRATEGY, "bucket").trim().toLowerCase(Locale.ROOT);
    Map<String, String> ranges = withPrefix(props, RANGE_PREFIX);
    Map<String, String> directory = withPrefix(props, DIRECTORY_PREFIX);
    String fallback = props.getOrDefault(FALLBACK, "none").trim().toLowerCase(Locale.ROOT);
    boolean usesRing = kind.equals("ring") || kind.equals("directory") && fallback.equals("ring");
    if (!usesRing && props.containsKey(RING_VNODES)) {
      throw misplaced(RING_VNODES, kind);
    }
    if (!kind.equals("range") && !ranges.isEmpty()) {
      throw misplaced(RANGE_PREFIX + ranges.keySet().iterator().next(), kind);
    }
    if (!kind.equals("directory") && !directory.isEmpty()) {
      throw misplaced(DIRECTORY_PREFIX + directory.keySet().iterator().next(), kind);
    }
    if (!kind.equals("directory") && props.containsKey(FALLBACK)) {
      throw misplaced(FALLBACK, kind);
    }
    return switch (kind) {
      case "bucket" -> new BucketStrategy(map);
      case "ring" -> ring(props, map);
      case "range" -> range(ranges, map);
      case "directory" -> directory(directory, map, keyType, switch (fallback) {
        case "none" -> null;
        case "bucket" -> new BucketStrategy(map);
        case "ring" -> ring(props, map);
        default -> throw new IllegalArgumentException(FALLBACK + "='" + props.get(FALLBACK)
            + "' is not a fallback; use none, bucket or ring");
      });
      default -> throw new IllegalArgumentException(STRATEGY + "='" + props.get(STRATEGY)
          + "' is not a strategy; use bucket, ring, range or directory");
    };
  }

  private static ConsistentHashRing ring(Map<String, String> props, ShardMap map) {
    String value = props.get(RING_VNODES);
    int vnodes = ConsistentHashRing.DEFAULT_VNODES_PER_WEIGHT;
    if (value != null) {
      try {
        vnodes = Integer.parseInt(value.trim());
      } catch (NumberFormatException e) {
        vnodes = -1;
      }
      if (vnodes < 1 || vnodes > 65_536) {
        throw new IllegalArgumentException(RING_VNODES + "='" + value
            + "' must be a whole number of virtual nodes per unit of weight from 1 to 65536; 256 is a good default");
      }
    }
    return new ConsistentHashRing(map.shards().values(), vnodes);
  }

  private static RangeStrategy range(Map<String, String> entries, ShardMap map) {
    if (entries.isEmpty()) {
      throw new IllegalArgumentException(STRATEGY + "=range needs at least one " + RANGE_PREFIX
          + "<shardId>=lower..upper property");
    }
    List<RangeStrategy.Range> ranges = new ArrayList<>();
    for (Map.Entry<String, String> e : entries.entrySet()) {
      String property = RANGE_PREFIX + e.getKey();
      String shard = knownShard(property, e.getKey(), map);
      for (String part : e.getValue().split(",")) {
        ranges.add(parseRange(property, e.getValue(), part.trim(), shard));
      }
    }
    try {
      return new RangeStrategy(ranges);
    } catch (IllegalArgumentException ex) {
      throw new IllegalArgumentException("The " + RANGE_PREFIX + "* properties do not tile the keys: "
          + ex.getMessage(), ex);
    }
  }

  private static RangeStrategy.Range parseRange(String property, String value, String part, String shard) {
    int dots = part.indexOf("..");
    if (dots < 0 || (dots == 0 && part.length() == 2)) {
      throw badRange(property, value, "each range is lower..upper, lower.. or ..upper");
    }
    try {
      String lower = part.substring(0, dots).trim();
      String upper = part.substring(dots + 2).trim();
      if (upper.isEmpty()) {
        return RangeStrategy.Range.from(Long.parseLong(lower), shard);
      }
      long hi = Long.parseLong(upper);
      if (lower.isEmpty()) {
        return RangeStrategy.Range.below(hi, shard);
      }
      return RangeStrategy.Range.of(Long.parseLong(lower), hi, shard);
    } catch (NumberFormatException ex) {
      throw badRange(property, value, "bounds are whole numbers within the long range");
    } catch (IllegalArgumentException ex) {
      throw badRange(property, value, ex.getMessage());
    }
  }

  private static IllegalArgumentException badRange(String property, String value, String why) {
    return new IllegalArgumentException(property + "='" + value + "' is not a key range: " + why
        + " (e.g. 0..1000000, lower inclusive, upper exclusive)");
  }

  private static DirectoryStrategy directory(Map<String, String> entries, ShardMap map, ShardKeyType keyType,
      ShardingStrategy fallback) {
    if (entries.isEmpty() && fallback == null) {
      throw new IllegalArgumentException(STRATEGY + "=directory needs " + DIRECTORY_PREFIX
          + "<key>=<shardId> properties, or " + FALLBACK + "=bucket|ring for unlisted keys");
    }
    Map<Object, String> directory = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : entries.entrySet()) {
      String property = DIRECTORY_PREFIX + e.getKey();
      Object key = parseKey(property, e.getKey(), keyType);
      String shard = knownShard(property, e.getValue().trim(), map);
      String previous = directory.put(key, shard);
      if (previous != null && !previous.equals(shard)) {
        throw new IllegalArgumentException(property + " maps key " + key + " to '" + shard
            + "' but another property for the same key maps it to '" + previous + "'; keep one");
      }
    }
    return new DirectoryStrategy(directory, fallback);
  }

  private static Object parseKey(String property, String text, ShardKeyType keyType) {
    try {
      if (keyType == null) {
        if (text.matches("[+-]?\\d{1,19}")) {
          return Long.parseLong(text);
        }
        if (text.matches("\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12}")) {
          return UUID.fromString(text);
        }
        return text;
      }
      return switch (keyType) {
        case SHORT -> Short.parseShort(text);
        case INT -> Integer.parseInt(text);
        case LONG -> Long.parseLong(text);
        case STRING -> text;
        case UUID -> UUID.fromString(text);
      };
    } catch (IllegalArgumentException ex) {
      throw new IllegalArgumentException(property + ": '" + text + "' is not a " + keyType + " shard key value;"
          + " write the key as the entity stores it (e.g. " + DIRECTORY_PREFIX
          + (keyType == ShardKeyType.UUID ? "123e4567-e89b-12d3-a456-426614174000" : "42") + "=<shardId>)", ex);
    }
  }

  private static String knownShard(String property, String shard, ShardMap map) {
    if (!map.shards().containsKey(shard)) {
      throw new IllegalArgumentException(property + " names shard '" + shard + "', which is not in shard map version "
          + map.version() + "; use one of " + map.shards().keySet());
    }
    return map.shard(shard).id();
  }

  private static IllegalArgumentException misplaced(String property, String kind) {
    return new IllegalArgumentException(property + " does not apply to " + STRATEGY + "=" + kind
        + "; remove it or choose the strategy it belongs to");
  }

  private static Map<String, String> withPrefix(Map<String, String> props, String prefix) {
    Map<String, String> out = new LinkedHashMap<>();
    props.forEach((k, v) -> {
      if (k.startsWith(prefix) && k.length() > prefix.length()) {
        out.put(k.substring(prefix.length()), v == null ? "" : v);
      }
    });
    return out;
  }
}
