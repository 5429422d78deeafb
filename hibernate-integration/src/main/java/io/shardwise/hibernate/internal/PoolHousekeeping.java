package io.shardwise.hibernate.internal;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The scheduler that HikariCP's housekeeping runs on for every pool of a persistence unit
 * (primaries, replicas, the transaction log). Left to itself, HikariCP gives each pool a
 * housekeeping thread of its own, so a unit over 128 shards held 128 threads or more that wake
 * every 30 s: here they share {@value #THREADS} daemon threads, whatever the shard count.
 *
 * <p>What runs on them is short: the pool's periodic idle and size check, the end of a
 * connection's lifetime (which hands the close to the pool's own closer), and the keepalive check
 * of an idle connection, which waits for its server at most the pool's validation timeout (at most
 * 1 s, {@link ShardPools}). A silent server can hold one thread for that long per idle connection;
 * the second keeps the other pools' housekeeping going. No checkout and no statement of a session
 * waits for these threads, so every shard's bulkhead and deadlines hold as before.
 *
 * <p>The owner ({@link ShardPools}) shuts it down after closing its pools; a pool closed later
 * (or a task scheduled after the shutdown) is discarded, not an error.
 */
public final class PoolHousekeeping implements AutoCloseable {
  /** Two, so that one keepalive check held by a silent server does not stop the others' housekeeping. */
  static final int THREADS = 2;
  /** The prefix of the threads' names, followed by the persistence unit's name and a number. */
  public static final String THREAD_PREFIX = "shardwise-pool-housekeeper-";

  private final ScheduledThreadPoolExecutor executor;

  PoolHousekeeping(String unitName) {
    AtomicInteger next = new AtomicInteger();
    this.executor = new ScheduledThreadPoolExecutor(THREADS, task -> {
      Thread t = new Thread(task, THREAD_PREFIX + unitName + "-" + next.incrementAndGet());
      t.setDaemon(true);
      return t;
    }, new ThreadPoolExecutor.DiscardPolicy());
    // as HikariCP configures its own: a closed pool's cancelled tasks leave the queue at once
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** The executor to give to {@code HikariConfig.setScheduledExecutor}. */
  public ScheduledExecutorService executor() {
    return executor;
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
