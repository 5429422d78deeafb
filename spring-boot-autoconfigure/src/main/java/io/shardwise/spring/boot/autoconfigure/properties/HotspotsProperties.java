package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.hotspots.*}: hotspot counting and the shard key check (docs/operations.md, Hotspots). */
public class HotspotsProperties {
  /** Count sessions routed by key per bucket and sample their keys (runtime default true). */
  private Boolean enabled;

  /** One routed key in this many feeds the hot-key summary; a power of two (runtime default 64). */
  private Integer sample;

  /** off (runtime default) or startup: log warnings for shard keys whose statistics look low-cardinality at startup. */
  private String keyCheck;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public Integer getSample() {
    return sample;
  }

  public void setSample(Integer sample) {
    this.sample = sample;
  }

  public String getKeyCheck() {
    return keyCheck;
  }

  public void setKeyCheck(String keyCheck) {
    this.keyCheck = keyCheck;
  }
}
