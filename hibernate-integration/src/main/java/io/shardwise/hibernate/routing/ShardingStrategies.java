package io.shardwise.hibernate.routing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
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
 *
 * <p>Reading the properties and building the strategy are two steps: {@link #parse} checks
 * everything that does not depend on the shard map (once, when the session factory is built) and
 * gives typed {@link Settings}; {@link #build} turns them into a strategy over a map (again for
 * every new version of the map).
 */
public final class ShardingStrategies {
  public static final String STRATEGY = "shardwise.strategy";
  public static final String RING_VNODES = "shardwise.ring.vnodes";
  public static final String RANGE_PREFIX = "shardwise.range.";
  public static final String DIRECTORY_PREFIX = "shardwise.directory.";
  public static final String FALLBACK = "shardwise.fallback";

  /** The strategies {@value #STRATEGY} names. */
  public enum Kind { BUCKET, RING, RANGE, DIRECTORY }

  /**
   * The strategy properties, parsed and checked as far as they can be without a shard map.
   *
   * @param kind the strategy
   * @param vnodesPerWeight ring points per unit of shard weight (ring, and a directory's ring fallback)
   * @param ranges the key ranges of a range strategy, tiling one interval (empty otherwise)
   * @param directory the listed keys of a directory strategy, key to shard id (empty otherwise)
   * @param fallback a directory's strategy for unlisted keys: {@code BUCKET}, {@code RING}, or null
   *     to reject them
   */
  public record Settings(Kind kind, int vnodesPerWeight, List<RangeStrategy.Range> ranges,
      Map<Object, String> directory, Kind fallback) {
    /** Bucket routing, which is what no strategy property at all means. */
    public static final Settings DEFAULT = new Settings(Kind.BUCKET, ConsistentHashRing.DEFAULT_VNODES_PER_WEIGHT,
        List.of(), Map.of(), null);

    public Settings {
      ranges = List.copyOf(ranges);
      directory = Collections.unmodifiableMap(new LinkedHashMap<>(directory));
    }
  }

  private ShardingStrategies() {
  }

  /** {@link #fromProperties(Map, ShardMap, ShardKeyType)} with directory keys typed by their form. */
  public static ShardingStrategy fromProperties(Map<String, String> props, ShardMap map) {
    return fromProperties(props, map, null);
  }

  /**
   * The strategy the properties describe, over the shards of {@code map}: {@link #parse} then
   * {@link #build}.
   *
   * @param keyType the type of the shard key, used to read directory keys; {@code null} to infer it
   * @throws IllegalArgumentException naming the property at fault and the fix
   */
  public static ShardingStrategy fromProperties(Map<String, String> props, ShardMap map, ShardKeyType keyType) {
    List<String> problems = new ArrayList<>();
    Settings settings = parse(props, keyType, problems);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return build(settings, map);
  }

  /**
   * Reads the strategy properties among {@code props} (other keys are ignored) and checks them
   * without a shard map: the strategy's name, properties that belong to another strategy, ring
   * points, range syntax and tiling, directory keys. Adds one line per problem to {@code problems}.
   *
   * @param keyType the type of the shard key, used to read directory keys; {@code null} to infer it
   * @return the settings, or null when a problem was found
   */
  public static Settings parse(Map<String, String> props, ShardKeyType keyType, List<String> problems) {
    int before = problems.size();
    String kindText = props.getOrDefault(STRATEGY, "bucket").trim().toLowerCase(Locale.ROOT);
    Kind kind = switch (kindText) {
      case "bucket" -> Kind.BUCKET;
      case "ring" -> Kind.RING;
      case "range" -> Kind.RANGE;
      case "directory" -> Kind.DIRECTORY;
      default -> {
        problems.add(STRATEGY + "='" + props.get(STRATEGY) + "' is not a strategy; use bucket, ring, range or directory");
        yield null;
      }
    };
    Map<String, String> rangeEntries = withPrefix(props, RANGE_PREFIX);
    Map<String, String> directoryEntries = withPrefix(props, DIRECTORY_PREFIX);
    String fallbackText = props.getOrDefault(FALLBACK, "none").trim().toLowerCase(Locale.ROOT);
    Kind fallback = switch (fallbackText) {
      case "none" -> null;
      case "bucket" -> Kind.BUCKET;
      case "ring" -> Kind.RING;
      default -> {
        if (kind == Kind.DIRECTORY) {
          problems.add(FALLBACK + "='" + props.get(FALLBACK) + "' is not a fallback; use none, bucket or ring");
        }
        yield null;
      }
    };
    if (kind == null) {
      return null;
    }
    boolean usesRing = kind == Kind.RING || kind == Kind.DIRECTORY && fallback == Kind.RING;
    if (!usesRing && props.containsKey(RING_VNODES)) {
      problems.add(misplaced(RING_VNODES, kindText));
    }
    if (kind != Kind.RANGE && !rangeEntries.isEmpty()) {
      problems.add(misplaced(RANGE_PREFIX + rangeEntries.keySet().iterator().next(), kindText));
    }
    if (kind != Kind.DIRECTORY && !directoryEntries.isEmpty()) {
      problems.add(misplaced(DIRECTORY_PREFIX + directoryEntries.keySet().iterator().next(), kindText));
    }
    if (kind != Kind.DIRECTORY && props.containsKey(FALLBACK)) {
      problems.add(misplaced(FALLBACK, kindText));
    }
    int vnodes = usesRing ? vnodes(props.get(RING_VNODES), problems) : ConsistentHashRing.DEFAULT_VNODES_PER_WEIGHT;
    List<RangeStrategy.Range> ranges = kind == Kind.RANGE ? ranges(rangeEntries, problems) : List.of();
    Map<Object, String> directory = kind == Kind.DIRECTORY
        ? directory(directoryEntries, keyType, fallback, problems) : Map.of();
    return problems.size() > before ? null : new Settings(kind, vnodes, ranges, directory, fallback);
  }

  /**
   * The strategy {@code settings} describe over the shards of {@code map}.
   *
   * @throws IllegalArgumentException when a range or directory entry names a shard the map does not have
   */
  public static ShardingStrategy build(Settings settings, ShardMap map) {
    return switch (settings.kind()) {
      case BUCKET -> new BucketStrategy(map);
      case RING -> new ConsistentHashRing(map.shards().values(), settings.vnodesPerWeight());
      case RANGE -> {
        List<RangeStrategy.Range> ranges = new ArrayList<>();
        for (RangeStrategy.Range r : settings.ranges()) {
          String shard = knownShard(RANGE_PREFIX + r.shardId(), r.shardId(), map);
          ranges.add(new RangeStrategy.Range(r.lower(), r.upper(), r.unboundedAbove(), shard));
        }
        yield new RangeStrategy(ranges);
      }
      case DIRECTORY -> {
        Map<Object, String> directory = new LinkedHashMap<>();
        settings.directory().forEach((key, shard) -> directory.put(key,
            knownShard(DIRECTORY_PREFIX + key, shard, map)));
        ShardingStrategy fallback = settings.fallback() == null ? null
            : build(new Settings(settings.fallback(), settings.vnodesPerWeight(), List.of(), Map.of(), null), map);
        yield new DirectoryStrategy(directory, fallback);
      }
    };
  }

  private static int vnodes(String value, List<String> problems) {
    if (value == null) {
      return ConsistentHashRing.DEFAULT_VNODES_PER_WEIGHT;
    }
    int vnodes;
    try {
      vnodes = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      vnodes = -1;
    }
    if (vnodes < 1 || vnodes > 65_536) {
      problems.add(RING_VNODES + "='" + value
          + "' must be a whole number of virtual nodes per unit of weight from 1 to 65536; 256 is a good default");
    }
    return vnodes;
  }

  private static List<RangeStrategy.Range> ranges(Map<String, String> entries, List<String> problems) {
    if (entries.isEmpty()) {
      problems.add(STRATEGY + "=range needs at least one " + RANGE_PREFIX + "<shardId>=lower..upper property");
      return List.of();
    }
    int before = problems.size();
    List<RangeStrategy.Range> ranges = new ArrayList<>();
    for (Map.Entry<String, String> e : entries.entrySet()) {
      String property = RANGE_PREFIX + e.getKey();
      for (String part : e.getValue().split(",")) {
        try {
          ranges.add(parseRange(property, e.getValue(), part.trim(), e.getKey()));
        } catch (IllegalArgumentException ex) {
          problems.add(ex.getMessage());
          break;
        }
      }
    }
    if (problems.size() > before) {
      return List.of();
    }
    try {
      new RangeStrategy(ranges);
    } catch (IllegalArgumentException ex) {
      problems.add("The " + RANGE_PREFIX + "* properties do not tile the keys: " + ex.getMessage());
    }
    return ranges;
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

  private static Map<Object, String> directory(Map<String, String> entries, ShardKeyType keyType, Kind fallback,
      List<String> problems) {
    if (entries.isEmpty() && fallback == null) {
      problems.add(STRATEGY + "=directory needs " + DIRECTORY_PREFIX
          + "<key>=<shardId> properties, or " + FALLBACK + "=bucket|ring for unlisted keys");
      return Map.of();
    }
    Map<Object, String> directory = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : entries.entrySet()) {
      String property = DIRECTORY_PREFIX + e.getKey();
      Object key;
      try {
        key = parseKey(property, e.getKey(), keyType);
      } catch (IllegalArgumentException ex) {
        problems.add(ex.getMessage());
        continue;
      }
      String shard = e.getValue().trim();
      if (shard.isEmpty()) {
        problems.add(property + " is empty; set it to the id of the shard that holds key " + key);
        continue;
      }
      String previous = directory.put(key, shard);
      if (previous != null && !previous.equals(shard)) {
        problems.add(property + " maps key " + key + " to '" + shard
            + "' but another property for the same key maps it to '" + previous + "'; keep one");
      }
    }
    return directory;
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

  private static String misplaced(String property, String kind) {
    return property + " does not apply to " + STRATEGY + "=" + kind
        + "; remove it or choose the strategy it belongs to";
  }

  private static Map<String, String> withPrefix(Map<String, String> props, String prefix) {
    Map<String, String> out = new TreeMap<>();
    props.forEach((k, v) -> {
      if (k.startsWith(prefix) && k.length() > prefix.length()) {
        out.put(k.substring(prefix.length()), v == null ? "" : v);
      }
    });
    return out;
  }
}
