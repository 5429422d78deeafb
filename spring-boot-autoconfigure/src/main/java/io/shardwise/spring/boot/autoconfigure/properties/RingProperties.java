package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.ring.*}: the consistent-hash ring strategy. */
public class RingProperties {
  /** Virtual nodes per unit of weight (runtime default 256). */
  private Integer vnodes;

  public Integer getVnodes() {
    return vnodes;
  }

  public void setVnodes(Integer vnodes) {
    this.vnodes = vnodes;
  }
}
