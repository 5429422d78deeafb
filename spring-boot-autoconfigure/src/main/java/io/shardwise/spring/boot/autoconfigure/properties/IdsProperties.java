package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.ids.*}: the id strategy of sharded entities that declare none, and where generated ids come from. */
public class IdsProperties {
  /** Bound as shardwise.ids.default (a field cannot be named default); described in additional-spring-configuration-metadata.json. */
  private String defaultStrategy;

  /** shardwise.ids.default: none or snowflake. */
  public String getDefault() {
    return defaultStrategy;
  }

  public void setDefault(String defaultStrategy) {
    this.defaultStrategy = defaultStrategy;
  }

  /**
   * per_shard (runtime default) or cluster: @GeneratedValue ids of sharded entities keep their type
   * and mapping, and their values come from a counter per table in the control database.
   */
  private String generated;

  public String getGenerated() {
    return generated;
  }

  public void setGenerated(String generated) {
    this.generated = generated;
  }
}
