package io.shardwise.testkit.internal;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a topology should look like; validated by {@code PostgresTopology.Builder}.
 *
 * @param settings postgresql.conf settings applied on top of {@link #DEFAULT_SETTINGS}
 */
public record TopologySpec(int shards, int replicasPerShard, Map<String, String> settings, Path postgresHome,
    String osUser, Path workDirectory) {

  /**
   * Every instance gets these. {@code fsync}, {@code full_page_writes} and {@code synchronous_commit}
   * trade crash safety of the test server for speed: test-only, never for a real deployment.
   */
  public static final Map<String, String> DEFAULT_SETTINGS = defaults();

  private static Map<String, String> defaults() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("listen_addresses", "'127.0.0.1'");
    m.put("unix_socket_directories", "''");
    m.put("max_connections", "200");
    m.put("shared_buffers", "32MB");
    m.put("wal_level", "logical");
    m.put("max_wal_senders", "16");
    m.put("max_replication_slots", "16");
    m.put("wal_keep_size", "256MB");
    m.put("max_prepared_transactions", "64");
    m.put("hot_standby", "on");
    m.put("hot_standby_feedback", "on");
    m.put("wal_receiver_status_interval", "1s");
    m.put("wal_retrieve_retry_interval", "200ms");
    m.put("fsync", "off");
    m.put("full_page_writes", "off");
    m.put("log_line_prefix", "'%m [%p] %q%a '");
    m.put("log_min_messages", "warning");
    m.put("log_timezone", "'UTC'");
    m.put("timezone", "'UTC'");
    return java.util.Collections.unmodifiableMap(m);
  }

  public Map<String, String> effectiveSettings() {
    Map<String, String> all = new LinkedHashMap<>(DEFAULT_SETTINGS);
    all.putAll(settings);
    return all;
  }
}
