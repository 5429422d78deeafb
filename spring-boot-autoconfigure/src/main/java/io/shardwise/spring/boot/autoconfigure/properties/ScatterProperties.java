package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.scatter.*}: scatter-gather queries. */
public class ScatterProperties {
  /** Threads of the scatter-gather pool (JDK 17; on 21+ parts run on virtual threads); default twice the shard count, at least 4, at most 16. */
  private Integer threads;

  public Integer getThreads() {
    return threads;
  }

  public void setThreads(Integer threads) {
    this.threads = threads;
  }
}
