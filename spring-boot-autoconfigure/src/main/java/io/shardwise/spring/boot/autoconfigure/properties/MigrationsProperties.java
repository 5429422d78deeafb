package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.migrations.*}: Flyway migrations on every shard (docs/operations.md#migrations). */
public class MigrationsProperties {
  /** Flyway locations of the scripts applied to every shard, comma-separated. */
  private String locations = "classpath:db/migration";

  /** At start, shards at different schema versions: refuse, mark-unavailable or off. */
  private String gate = "refuse";

  /** Flyway's history table on every shard. */
  private String table = "flyway_schema_history";

  /** The version that existing tables of a shard without a history table stand for; unset refuses such a shard. */
  private String baselineVersion;

  public String getLocations() {
    return locations;
  }

  public void setLocations(String locations) {
    this.locations = locations;
  }

  public String getGate() {
    return gate;
  }

  public void setGate(String gate) {
    this.gate = gate;
  }

  public String getTable() {
    return table;
  }

  public void setTable(String table) {
    this.table = table;
  }

  public String getBaselineVersion() {
    return baselineVersion;
  }

  public void setBaselineVersion(String baselineVersion) {
    this.baselineVersion = baselineVersion;
  }
}
