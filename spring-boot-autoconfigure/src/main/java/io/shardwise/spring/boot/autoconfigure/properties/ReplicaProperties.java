package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.replica.*}: read replicas: how one is chosen, when one is out of rotation, how they are watched. */
public class ReplicaProperties {
  /** How a replica is chosen: round_robin or least_outstanding. */
  private String balance = "round_robin";

  /** A replica further behind its primary than this is out of rotation, in milliseconds. */
  private Integer maxLagMs = 5000;

  /** A replica further behind its primary than this many WAL bytes is out of rotation. */
  private Integer maxLagBytes = 67_108_864;

  /** How often the monitor checks every replica, in milliseconds. */
  private Integer monitorIntervalMs = 200;

  /** How long a read waits for a replica connection before it falls back to the primary, in milliseconds. */
  private Integer connectionTimeoutMs = 1000;

  public String getBalance() {
    return balance;
  }

  public void setBalance(String balance) {
    this.balance = balance;
  }

  public Integer getMaxLagMs() {
    return maxLagMs;
  }

  public void setMaxLagMs(Integer maxLagMs) {
    this.maxLagMs = maxLagMs;
  }

  public Integer getMaxLagBytes() {
    return maxLagBytes;
  }

  public void setMaxLagBytes(Integer maxLagBytes) {
    this.maxLagBytes = maxLagBytes;
  }

  public Integer getMonitorIntervalMs() {
    return monitorIntervalMs;
  }

  public void setMonitorIntervalMs(Integer monitorIntervalMs) {
    this.monitorIntervalMs = monitorIntervalMs;
  }

  public Integer getConnectionTimeoutMs() {
    return connectionTimeoutMs;
  }

  public void setConnectionTimeoutMs(Integer connectionTimeoutMs) {
    this.connectionTimeoutMs = connectionTimeoutMs;
  }
}
