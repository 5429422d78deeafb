package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardwiseSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Which {@code shardwise.*} keys Shardwise reads: the fixed keys of {@link SettingRegistry}, and the
 * patterns with a variable part ({@code shardwise.shard.<id>.url}, {@code shardwise.range.<shardId>},
 * {@code shardwise.directory.<key>}, a shard's own deadlines). A key that is neither is a typo until
 * proven otherwise: {@link #suggestionFor} names the nearest known key for the parse's message.
 */
final class KnownSettings {
  private KnownSettings() {}

  /** Names under {@code shardwise.primary.}, {@code shardwise.replica.} and {@code shardwise.shard.<id>.primary|replica.}. */
  static final List<String> TIMEOUT_NAMES = List.of(ShardwiseSettings.CONNECT_TIMEOUT_MS,
      ShardwiseSettings.SOCKET_TIMEOUT_MS, ShardwiseSettings.STATEMENT_TIMEOUT_MS, ShardwiseSettings.LOCK_TIMEOUT_MS,
      ShardwiseSettings.IDLE_IN_TRANSACTION_TIMEOUT_MS);

  /** A per-shard key with a role: {@code shardwise.shard.<id>.primary|replica.<name>}. */
  static final java.util.regex.Pattern SHARD_ROLE_KEY = java.util.regex.Pattern.compile(
      java.util.regex.Pattern.quote(ShardwiseSettings.SHARD_PREFIX) + "(.+)\\.(primary|replica)\\.([a-z_]+)");

  /** Keys Shardwise reads under {@code shardwise.shard.<id>.}. */
  private static final List<String> SHARD_ATTRIBUTES = List.of("url", "replicas", "weight", "state");

  /** Every fixed key of the registry. Per-shard, range and directory keys are patterns, matched in {@link #isKnown}. */
  private static final Set<String> KNOWN_KEYS = Set.copyOf(SettingRegistry.fixedKeys());

  /** Keys of other Shardwise modules that share the JVM's system properties (Hibernate copies those in). */
  static final List<String> FOREIGN_PREFIXES = List.of("shardwise.testkit.");

  /** The shard id in a {@code shardwise.shard.<id>.<attribute>} or {@code shardwise.shard.<id>.<role>.<name>} key. */
  static String shardIdOf(String key) {
    java.util.regex.Matcher m = SHARD_ROLE_KEY.matcher(key);
    if (m.matches()) {
      return m.group(1);
    }
    String rest = key.substring(ShardwiseSettings.SHARD_PREFIX.length());
    int dot = rest.lastIndexOf('.');
    return dot > 0 ? rest.substring(0, dot) : rest;
  }

  /**
   * Whether Shardwise reads {@code key}: a fixed key, {@code shardwise.shard.<id>.url|replicas|weight|state},
   * {@code shardwise.range.<shardId>} or {@code shardwise.directory.<key>}.
   */
  static boolean isKnown(String key) {
    if (KNOWN_KEYS.contains(key)) {
      return true;
    }
    for (String prefix : List.of(ShardwiseSettings.RANGE_PREFIX, ShardwiseSettings.DIRECTORY_PREFIX)) {
      if (key.startsWith(prefix)) {
        return key.length() > prefix.length();
      }
    }
    if (key.startsWith(ShardwiseSettings.SHARD_PREFIX)) {
      java.util.regex.Matcher m = SHARD_ROLE_KEY.matcher(key);
      if (m.matches()) {
        return TIMEOUT_NAMES.contains(m.group(3)) || m.group(3).equals(ShardwiseSettings.POOL_CONNECTION_TIMEOUT_MS);
      }
      int dot = key.lastIndexOf('.');
      return dot > ShardwiseSettings.SHARD_PREFIX.length() && SHARD_ATTRIBUTES.contains(key.substring(dot + 1));
    }
    return false;
  }

  /**
   * The known key nearest to {@code key} by edit distance, if near enough to be a typo of it. Pattern
   * keys are compared with their variable part taken from {@code key} itself, so that
   * {@code shardwise.shard.s0.uri} suggests {@code shardwise.shard.s0.url} and
   * {@code shardwise.ranges.s0} suggests {@code shardwise.range.s0}.
   */
  static String suggestionFor(String key) {
    List<String> candidates = new ArrayList<>(KNOWN_KEYS);
    String[] segments = key.split("\\.", 3);
    if (segments.length == 3) {
      String rest = segments[2];
      candidates.add(ShardwiseSettings.RANGE_PREFIX + rest);
      candidates.add(ShardwiseSettings.DIRECTORY_PREFIX + rest);
      int dot = rest.lastIndexOf('.');
      String id = dot > 0 ? rest.substring(0, dot) : rest;
      for (String attribute : SHARD_ATTRIBUTES) {
        candidates.add(ShardwiseSettings.SHARD_PREFIX + id + "." + attribute);
      }
      java.util.regex.Matcher m = SHARD_ROLE_KEY.matcher(key);
      if (m.matches()) {
        for (String name : TIMEOUT_NAMES) {
          candidates.add(ShardwiseSettings.SHARD_PREFIX + m.group(1) + "." + m.group(2) + "." + name);
        }
        candidates.add(ShardwiseSettings.SHARD_PREFIX + m.group(1) + "." + m.group(2) + "."
            + ShardwiseSettings.POOL_CONNECTION_TIMEOUT_MS);
      }
    }
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int distance = editDistance(key, candidate);
      if (distance < bestDistance || distance == bestDistance && candidate.compareTo(best) < 0) {
        best = candidate;
        bestDistance = distance;
      }
    }
    if (bestDistance > 0 && bestDistance <= Math.max(2, key.length() / 6)) {
      return best;
    }
    // not a typo but the wrong family, e.g. shardwise.transactions.log_pool_size: the one key with that last word
    String lastWord = key.substring(key.lastIndexOf('.') + 1);
    List<String> sameLastWord = KNOWN_KEYS.stream().filter(k -> k.endsWith("." + lastWord)).toList();
    return sameLastWord.size() == 1 ? sameLastWord.get(0) : null;
  }

  /** Levenshtein distance: insertions, deletions and substitutions of one character each cost 1. */
  static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
