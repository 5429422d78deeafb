package io.shardwise.spring.boot.autoconfigure.properties;

import java.util.ArrayList;
import java.util.List;

/** The properties {@code shardwise.sql.init.*}: seed scripts for development databases, routed as spring.sql.init data scripts are. */
public class SqlInitProperties {
  /**
   * Seed scripts (e.g. classpath:reference-data.sql) run at startup after the schema action: rows of sharded tables on their key's shard, reference tables on every shard, nothing when a statement cannot be routed. For development and tests.
   */
  private List<String> locations = new ArrayList<>();

  public List<String> getLocations() {
    return locations;
  }

  public void setLocations(List<String> locations) {
    this.locations = locations;
  }
}
