package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.saga.*}: sagas: the retries of a step before the saga compensates. */
public class SagaProperties {
  /** Attempts of a saga step on transient failures before the saga compensates. */
  private Integer maxAttempts = 5;

  /** First backoff between saga step attempts, doubled each time, in milliseconds. */
  private Integer backoffMs = 50;

  public Integer getMaxAttempts() {
    return maxAttempts;
  }

  public void setMaxAttempts(Integer maxAttempts) {
    this.maxAttempts = maxAttempts;
  }

  public Integer getBackoffMs() {
    return backoffMs;
  }

  public void setBackoffMs(Integer backoffMs) {
    this.backoffMs = backoffMs;
  }
}
