package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.tx.*}: cross-shard transactions (two-phase commit), when a control database is set. */
public class TxProperties {
  /** Whether cross-shard transactions, sagas and reference-table writes are available. */
  private Boolean enabled = true;

  /** How often recovery looks for in-doubt prepared transactions and unfinished sagas, in milliseconds. */
  private Integer recoveryIntervalMs = 10_000;

  /** How long a live coordinator's prepared transaction is left alone before recovery may abort it, in milliseconds. */
  private Integer inDoubtGraceMs = 60_000;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public Integer getRecoveryIntervalMs() {
    return recoveryIntervalMs;
  }

  public void setRecoveryIntervalMs(Integer recoveryIntervalMs) {
    this.recoveryIntervalMs = recoveryIntervalMs;
  }

  public Integer getInDoubtGraceMs() {
    return inDoubtGraceMs;
  }

  public void setInDoubtGraceMs(Integer inDoubtGraceMs) {
    this.inDoubtGraceMs = inDoubtGraceMs;
  }
}
