package io.shardwise.testkit;

import java.nio.file.Path;

/**
 * Run in a child JVM by {@link NoOrphansTest}: starts a topology in a given work directory (and,
 * with a second argument {@code freeze}, freezes every node) and blocks.
 */
public final class OrphanFixture {
  private OrphanFixture() {}

  public static void main(String[] args) throws Exception {
    PostgresTopology pg = PostgresTopology.builder().shards(1).replicasPerShard(1)
        .workDirectory(Path.of(args[0])).start();
    if (args.length > 1 && args[1].equals("freeze")) {
      pg.nodes().forEach(PostgresNode::freeze);
    }
    System.out.println("READY " + pg.nodes().size());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
