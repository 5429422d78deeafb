package io.shardwise.cli;

import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.ShardwiseDdl;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.resharding.BucketRanges;
import io.shardwise.hibernate.resharding.ReshardProgress;
import io.shardwise.hibernate.resharding.ReshardRequest;
import io.shardwise.hibernate.resharding.ReshardTable;
import io.shardwise.hibernate.resharding.ReshardWorkflow;
import io.shardwise.hibernate.resharding.Resharding;
import io.shardwise.hibernate.resharding.ReshardingException;
import io.shardwise.hibernate.resharding.SwitchResult;
import io.shardwise.hibernate.resharding.VerificationReport;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardState;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code shardwise reshard plan|start|resume|status|verify|switch-reads|switch-writes|rollback|complete|cancel}:
 * online moves of buckets between shards, driven from a terminal. Every command talks to the
 * control database only (and, through the shard map it holds, to the shards); a move's state lives
 * there, so any command may run from any machine, and {@code resume} picks up after a crash.
 */
@Command(name = "shardwise", mixinStandardHelpOptions = true, version = "shardwise 0.1.0",
    subcommands = {ShardwiseCli.Reshard.class, ShardwiseCli.Ddl.class},
    description = "Operates a Shardwise deployment: online resharding, and the SQL that prepares its databases.")
public final class ShardwiseCli {

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line with Shardwise's exception handling: a refused step prints its message, not a stack trace. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new ShardwiseCli());
    cli.setExecutionExceptionHandler((e, line, parsed) -> {
      line.getErr().println("shardwise: " + e.getMessage());
      return e instanceof ReshardingException || e instanceof IllegalArgumentException ? 2 : 1;
    });
    return cli;
  }

  /** Where the control database is and how to log in; the same for every subcommand. */
  static final class Connection {
    @Option(names = "--control-url", required = true, description = "JDBC URL of the control database",
        defaultValue = "${env:SHARDWISE_CONTROL_URL}")
    String controlUrl;

    @Option(names = "--user", description = "role for the control database and the shards", defaultValue = "${env:SHARDWISE_USER}")
    String user;

    @Option(names = "--password", description = "its password (default: $SHARDWISE_PASSWORD)",
        defaultValue = "${env:SHARDWISE_PASSWORD}")
    String password;

    @Option(names = "--set", description = "a Shardwise setting, e.g. --set shardwise.reshard.pause_limit_ms=50")
    Map<String, String> settings = new HashMap<>();

    Resharding resharding() {
      Map<String, Object> all = new HashMap<>(settings);
      all.put(ShardwiseSettings.CONTROL_URL, controlUrl);
      if (user != null) {
        all.put(ShardwiseSettings.USER, user);
      }
      if (password != null) {
        all.put(ShardwiseSettings.PASSWORD, password);
      }
      return Shardwise.resharding(all);
    }
  }

  /** What to move. */
  static final class MoveOptions {
    @Option(names = "--from", required = true, description = "the source shard")
    String source;

    @Option(names = "--to", required = true, description = "the target shard")
    String target;

    @Option(names = "--buckets", required = true, description = "buckets to move, e.g. 0-340,512")
    String buckets;

    @Option(names = "--table", required = true, description = "table:keyColumn:type (long|int|short|string|uuid),"
        + " or a reference table's name; repeat for every table of the co-location groups")
    List<String> tables = new ArrayList<>();

    @Option(names = "--target-url", description = "JDBC URL of the target when it is a new shard (added by the move)")
    String targetUrl;

    @Option(names = "--target-weight", defaultValue = "1", description = "weight of a new target shard")
    int targetWeight;

    ReshardRequest request() {
      ShardDescriptor newTarget = targetUrl == null ? null
          : new ShardDescriptor(target, targetUrl, List.of(), targetWeight, ShardState.ACTIVE);
      return new ReshardRequest(source, target, BucketRanges.parse(buckets), tables.stream().map(ReshardTable::parse)
          .toList(), newTarget);
    }
  }

  @Command(name = "reshard", mixinStandardHelpOptions = true, description = "Moves buckets between shards online.",
      subcommands = {Plan.class, Start.class, Resume.class, Status.class, Verify.class, SwitchReads.class,
          SwitchWrites.class, Rollback.class, Complete.class, Cancel.class})
  static final class Reshard {
  }

  /**
   * {@code shardwise ddl --role app [--global-index Entity.attribute=com.example.Entity ...]}: prints
   * the SQL an administrator runs once so that the application's role needs no {@code CREATE}
   * (the same SQL a start with {@code shardwise.ddl = validate} prints when something is missing).
   * Connects to nothing.
   */
  @Command(name = "ddl", mixinStandardHelpOptions = true,
      description = "Prints the SQL that creates Shardwise's own tables and grants the application's role what it"
          + " needs, per database; connects to nothing.")
  static final class Ddl implements Callable<Integer> {
    @Option(names = "--role", required = true, description = "The role the application connects as.")
    String role;

    @Option(names = "--global-index", paramLabel = "ENTITY.ATTRIBUTE[=FULL.CLASS.NAME]",
        description = "A @GlobalIndex, e.g. Customer.email=com.example.Customer (the class name only matters for"
            + " names cut with a hash); repeatable.")
    List<String> globalIndexes = new ArrayList<>();

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      for (ShardwiseDdl.Feature feature : ShardwiseDdl.Feature.values()) {
        out.println(feature.script(role));
        out.println();
      }
      for (String index : globalIndexes) {
        String[] named = index.split("=", 2);
        int dot = named[0].lastIndexOf('.');
        if (dot <= 0 || dot == named[0].length() - 1) {
          throw new IllegalArgumentException("--global-index " + index + ": write Entity.attribute, e.g."
              + " Customer.email=com.example.Customer");
        }
        String simple = named[0].substring(0, dot);
        String table = ShardwiseDdl.globalIndexTable(named.length > 1 ? named[1] : simple, simple,
            named[0].substring(dot + 1), false);
        out.println(ShardwiseDdl.globalIndexScript(table, role));
        out.println();
      }
      out.flush();
      return 0;
    }
  }

  abstract static class Step implements Callable<Integer> {
    @Mixin
    Connection connection = new Connection();

    @Spec
    CommandLine.Model.CommandSpec spec;

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    /** A live progress bar on one line, redrawn; messages on lines of their own. */
    Consumer<ReshardProgress> bar() {
      PrintWriter out = out();
      return new Consumer<>() {
        boolean onBar;

        @Override
        public synchronized void accept(ReshardProgress p) {
          if (p.message() != null) {
            out.print(onBar ? "\n" : "");
            out.println("[" + p.workflowId() + "] " + p.message());
            onBar = false;
          } else {
            out.print("\r[" + p.workflowId() + "] " + p.bar(30) + "   ");
            onBar = true;
          }
          out.flush();
        }
      };
    }
  }

  @Command(name = "plan", description = "Shows what a move would do (buckets, tables, rows, bytes); changes nothing.")
  static final class Plan extends Step {
    @Mixin
    MoveOptions move = new MoveOptions();

    @Override
    public Integer call() {
      out().print(connection.resharding().plan(move.request()).describe());
      return 0;
    }
  }

  @Command(name = "start", description = "Starts a move and runs it to VERIFIED: copy, catch-up, verification.")
  static final class Start extends Step {
    @Mixin
    MoveOptions move = new MoveOptions();

    @Override
    public Integer call() {
      ReshardWorkflow w = connection.resharding().start(move.request(), bar());
      out().println();
      out().println(w + (w.lastError() == null ? "" : "\n" + w.lastError()));
      return 0;
    }
  }

  @Command(name = "resume", description = "Continues a move from its recorded phase (after a crash).")
  static final class Resume extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    public Integer call() {
      ReshardWorkflow w = connection.resharding().resume(id, bar());
      out().println();
      out().println(w);
      return 0;
    }
  }

  @Command(name = "status", description = "Shows a move (objects it created, catch-up lag) or lists all moves.")
  static final class Status extends Step {
    @Parameters(paramLabel = "WORKFLOW", arity = "0..1")
    String id;

    @Override
    public Integer call() {
      Resharding moves = connection.resharding();
      if (id == null) {
        moves.workflows().forEach(w -> out().println(w));
      } else {
        out().print(moves.status(id).describe());
      }
      return 0;
    }
  }

  @Command(name = "verify", description = "Compares source and target bucket by bucket; lists differing keys.")
  static final class Verify extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    public Integer call() {
      VerificationReport report = connection.resharding().verify(id, bar());
      out().println();
      out().print(report.describe());
      return report.equal() ? 0 : 3;
    }
  }

  @Command(name = "switch-reads", description = "Serves reads of the moving buckets from the target.")
  static final class SwitchReads extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    public Integer call() {
      out().println(connection.resharding().switchReads(id));
      return 0;
    }
  }

  @Command(name = "switch-writes", description = "Hands the buckets to the target, pausing their writes at most"
      + " shardwise.reshard.pause_limit_ms; abandons the switch (writes stay on the source) if that is not enough.")
  static final class SwitchWrites extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    public Integer call() {
      SwitchResult result = connection.resharding().switchWrites(id);
      out().println(result.describe());
      return result.switched() ? 0 : 4;
    }
  }

  @Command(name = "rollback", description = "Returns the reads of the moving buckets to the source.")
  static final class Rollback extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    public Integer call() {
      out().println(connection.resharding().rollback(id));
      return 0;
    }
  }

  @Command(name = "complete", description = "Deletes the moved rows from the source and drops what the move created.")
  static final class Complete extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    public Integer call() {
      ReshardWorkflow w = connection.resharding().complete(id, bar());
      out().println();
      out().println(w);
      return 0;
    }
  }

  @Command(name = "cancel", description = "Abandons a move before its write switch, dropping everything it created.")
  static final class Cancel extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    public Integer call() {
      out().println(connection.resharding().cancel(id));
      return 0;
    }
  }
}
