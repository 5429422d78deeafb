package io.shardwise.spring.boot.autoconfigure.properties;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

/** The properties {@code shardwise.sql.*}: scripts run on every shard at startup, in {@link SqlInitProperties}. */
public class SqlProperties {
  @NestedConfigurationProperty
  private final SqlInitProperties init = new SqlInitProperties();

  public SqlInitProperties getInit() {
    return init;
  }
}
