package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.schema.*}: schema management on every shard at startup (instead of spring.jpa.hibernate.ddl-auto, which reaches one shard). */
public class SchemaProperties {
  /** none, create, drop-and-create, update or validate. */
  private String action = "none";

  public String getAction() {
    return action;
  }

  public void setAction(String action) {
    this.action = action;
  }
}
