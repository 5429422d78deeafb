package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.ryw.*}: read-your-writes: the consistency tokens' secret and the LSN pins. */
public class RywProperties {
  /** HMAC secret that signs consistency tokens; the same on every instance, 32+ random characters. */
  private String secret;

  /** How long an LSN pin is kept, in milliseconds. */
  private Integer pinTtlMs = 60_000;

  public String getSecret() {
    return secret;
  }

  public void setSecret(String secret) {
    this.secret = secret;
  }

  public Integer getPinTtlMs() {
    return pinTtlMs;
  }

  public void setPinTtlMs(Integer pinTtlMs) {
    this.pinTtlMs = pinTtlMs;
  }
}
