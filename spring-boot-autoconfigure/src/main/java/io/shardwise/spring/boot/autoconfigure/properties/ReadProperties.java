package io.shardwise.spring.boot.autoconfigure.properties;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

/** The properties {@code shardwise.read.*}: read-only units of work on replicas; today only their hedging, in {@link ReadHedgeProperties}. */
public class ReadProperties {
  @NestedConfigurationProperty
  private final ReadHedgeProperties hedge = new ReadHedgeProperties();

  public ReadHedgeProperties getHedge() {
    return hedge;
  }
}
