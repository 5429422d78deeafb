package io.shardwise.spring.boot.autoconfigure.properties;

import java.util.ArrayList;
import java.util.List;

/** The properties {@code shardwise.shard.<id>.*}: one shard of the static shard map, an entry of {@code ShardwiseProperties.getShard()}. */
public class ShardProperties {
  /** JDBC URL of the shard's primary (jdbc:postgresql://host:port/db). */
  private String url;

  /** JDBC URLs of the shard's streaming replicas; read-only transactions are served by them. */
  private List<String> replicas = new ArrayList<>();

  /** Relative weight: a weight-2 shard owns twice the buckets of a weight-1 shard. */
  private Integer weight = 1;

  /** The shard's state: active (default), read_only or offline. */
  private String state;

  public String getUrl() {
    return url;
  }

  public void setUrl(String url) {
    this.url = url;
  }

  public List<String> getReplicas() {
    return replicas;
  }

  public void setReplicas(List<String> replicas) {
    this.replicas = replicas;
  }

  public Integer getWeight() {
    return weight;
  }

  public void setWeight(Integer weight) {
    this.weight = weight;
  }

  public String getState() {
    return state;
  }

  public void setState(String state) {
    this.state = state;
  }
}
