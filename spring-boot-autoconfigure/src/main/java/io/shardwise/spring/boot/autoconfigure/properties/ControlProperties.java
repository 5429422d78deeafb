package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.control.*}: the control database that holds the shard map (and the logs of cross-shard transactions). */
public class ControlProperties {
  /** JDBC URL of the control database; when set, the shard map is read from it. */
  private String url;

  /** Initialise an empty control database from the static shard map. */
  private Boolean initialize = false;

  public String getUrl() {
    return url;
  }

  public void setUrl(String url) {
    this.url = url;
  }

  public Boolean getInitialize() {
    return initialize;
  }

  public void setInitialize(Boolean initialize) {
    this.initialize = initialize;
  }
}
