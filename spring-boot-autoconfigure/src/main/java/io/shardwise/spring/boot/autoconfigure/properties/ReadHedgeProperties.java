package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.read.hedge.*}: hedged replica reads (docs/failure-handling.md, Hedged replica reads). */
public class ReadHedgeProperties {
  /** Hedge read-only ShardRoute units of work still running on a replica after the hedge delay (runtime default false). */
  private Boolean enabled;

  /** The percentile of a replica's recent units the hedge delay starts from, 50..99 (runtime default 95). */
  private Integer percentile;

  /** What that percentile is multiplied by, 1..100 (runtime default 2). */
  private Double multiplier;

  /** The shortest hedge delay, in milliseconds (runtime default 20). */
  private Integer floorMs;

  /** The longest hedge delay, and the delay until a replica has 20 units, in milliseconds (runtime default 1000). */
  private Integer ceilingMs;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public Integer getPercentile() {
    return percentile;
  }

  public void setPercentile(Integer percentile) {
    this.percentile = percentile;
  }

  public Double getMultiplier() {
    return multiplier;
  }

  public void setMultiplier(Double multiplier) {
    this.multiplier = multiplier;
  }

  public Integer getFloorMs() {
    return floorMs;
  }

  public void setFloorMs(Integer floorMs) {
    this.floorMs = floorMs;
  }

  public Integer getCeilingMs() {
    return ceilingMs;
  }

  public void setCeilingMs(Integer ceilingMs) {
    this.ceilingMs = ceilingMs;
  }
}
