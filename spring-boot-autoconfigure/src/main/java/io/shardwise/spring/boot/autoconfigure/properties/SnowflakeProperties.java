package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.snowflake.*}: Snowflake ids: the worker id, fixed or leased, and the clock. */
public class SnowflakeProperties {
  /** A fixed worker id for this instance (instead of a leased one). */
  private Integer workerId;

  /** system (read the clock for every id) or ticking (fixed worker ids only). */
  private String clock;

  /** JDBC URL of the control database to lease a worker id from. */
  private String leaseUrl;

  /** User for the lease database. */
  private String leaseUser;

  /** Password for the lease database. */
  private String leasePassword;

  /** Lease time-to-live in seconds (runtime default 30). */
  private Integer leaseTtlSeconds;

  public Integer getWorkerId() {
    return workerId;
  }

  public void setWorkerId(Integer workerId) {
    this.workerId = workerId;
  }

  public String getClock() {
    return clock;
  }

  public void setClock(String clock) {
    this.clock = clock;
  }

  public String getLeaseUrl() {
    return leaseUrl;
  }

  public void setLeaseUrl(String leaseUrl) {
    this.leaseUrl = leaseUrl;
  }

  public String getLeaseUser() {
    return leaseUser;
  }

  public void setLeaseUser(String leaseUser) {
    this.leaseUser = leaseUser;
  }

  public String getLeasePassword() {
    return leasePassword;
  }

  public void setLeasePassword(String leasePassword) {
    this.leasePassword = leasePassword;
  }

  public Integer getLeaseTtlSeconds() {
    return leaseTtlSeconds;
  }

  public void setLeaseTtlSeconds(Integer leaseTtlSeconds) {
    this.leaseTtlSeconds = leaseTtlSeconds;
  }
}
