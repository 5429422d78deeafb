package io.shardwise.hibernate.resharding;

import io.shardwise.hibernate.Shardwise;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A mover in a JVM of its own, so that a test can kill it for real:
 * {@code MoverProcess <controlUrl> start <source> <target> <buckets> <table>...} or
 * {@code MoverProcess <controlUrl> switch-writes|rollback <workflowId>}. With
 * {@code -Dshardwise-test.reshard.crash_at=POINT} it halts at that point.
 */
public final class MoverProcess {
  private MoverProcess() {}

  public static void main(String[] args) {
    Resharding moves = Shardwise.resharding(Map.of("shardwise.control.url", args[0], "shardwise.user", "postgres",
        "shardwise.reshard.pause_limit_ms", MoveFixture.PAUSE_LIMIT_MS));
    switch (args[1]) {
      case "start" -> {
        List<ReshardTable> tables = Arrays.stream(args, 5, args.length).map(ReshardTable::parse).toList();
        ReshardWorkflow w = moves.start(ReshardRequest.move(args[2], args[3], BucketRanges.parse(args[4]), tables),
            p -> { });
        System.out.println("workflow " + w.id() + " " + w.phase());
      }
      case "switch-writes" -> System.out.println(moves.switchWrites(args[2]).describe());
      case "rollback" -> System.out.println(moves.rollbackWrites(args[2]).describeRollback());
      default -> throw new IllegalArgumentException(args[1]);
    }
    System.exit(0);
  }
}
