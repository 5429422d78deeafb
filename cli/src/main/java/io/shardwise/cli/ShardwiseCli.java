package io.shardwise.cli;

import io.shardwise.advisor.AdvisorException;
import io.shardwise.advisor.AdvisorRun;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.ShardwiseDdl;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.resharding.BucketRanges;
import io.shardwise.hibernate.resharding.ReshardPhase;
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
import java.nio.file.Path;
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
@Command(name = "shardwise", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
    subcommands = {ShardwiseCli.Advise.class, ShardwiseCli.Reshard.class, ShardwiseCli.Ddl.class, ShardwiseCli.Migrate.class,
        ShardwiseCli.GenerateCompletion.class},
    description = "Operates a Shardwise deployment: the shard-key advice for an unsharded application, online resharding, schema migrations on every shard, and the SQL"
        + " that prepares its databases.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:done (plan, status: shown)", "1:failed (a database error; the message says what to do)",
        "2:refused (bad arguments, or a move that may not go on; nothing changed)",
        "3:differences (verify: buckets differ; migrate --status: shards differ or scripts are pending)",
        "4:switch abandoned (switch-writes, rollback: writes stay where they were)",
        "5:a migration failed (migrate)",
        "127:the launcher found no Java or no jar (bin/shardwise)"},
    footer = {"%nExamples:", "  shardwise advise --classes target/classes --package com.example.domain",
        "  shardwise reshard status --control-url $SHARDWISE_CONTROL_URL",
        "  source <(shardwise generate-completion)     # completion in this bash"})
public final class ShardwiseCli {

  public static void main(String[] args) {
    CommandLine cli = commandLine();
    int exit = cli.execute(args);
    // System.exit runs no finalizer of the writers: what a command printed without a line end is flushed here
    cli.getOut().flush();
    cli.getErr().flush();
    System.exit(exit);
  }

  /**
   * The command line with Shardwise's exception handling (a refused step prints its message, not a
   * stack trace) and one standard output and error for every subcommand, flushed at each line end.
   */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new ShardwiseCli());
    cli.setOut(new PrintWriter(new java.io.OutputStreamWriter(System.out, java.nio.charset.Charset.defaultCharset()),
        true));
    cli.setErr(new PrintWriter(new java.io.OutputStreamWriter(System.err, java.nio.charset.Charset.defaultCharset()),
        true));
    cli.setExecutionExceptionHandler((e, line, parsed) -> {
      line.getErr().println("shardwise: " + e.getMessage());
      line.getErr().flush();
      return e instanceof ReshardingException || e instanceof IllegalArgumentException
          || e instanceof AdvisorException ? 2 : 1;
    });
    return cli;
  }

  /** {@code --version}: the version the build wrote into {@code version.properties}, and the JVM's. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws java.io.IOException {
      java.util.Properties p = new java.util.Properties();
      try (java.io.InputStream in = ShardwiseCli.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          p.load(in);
        }
      }
      return new String[] {"shardwise " + p.getProperty("version", "(unknown version)"),
          "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"};
    }
  }

  /**
   * {@code shardwise advise --classes target/classes --package com.example.domain [--jdbc-url ...]}: reads
   * an unsharded application's compiled entities and queries (and, read-only, its database's
   * statistics) and proposes the shard key, the co-location groups, the reference tables and each
   * query's verdict (docs/adopting.md, "Start with the advisor").
   */
  @Command(name = "advise", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      description = "Proposes the shard key of an unsharded JPA application: the root, how each"
      + " entity follows it, the reference tables, every query's verdict and the balance, with the reasons.",
      footer = {"%nExamples:", "  shardwise advise --classes target/classes --package com.example.domain"
          + " --jdbc-url jdbc:postgresql://localhost/app --patch advice.txt",
          "  shardwise advise --classes target/classes:$(cat cp.txt) --query-log postgresql.log --json -"})
  static final class Advise implements Callable<Integer> {
    @Option(names = "--classes", required = true, split = ",", paramLabel = "PATH",
        description = "the application's class directories or jars (its compiled entities and repositories, and the"
            + " jars they need to load), separated by commas or as a class path (: or ; on Windows); repeatable")
    List<Path> classes = new ArrayList<>();

    @Option(names = "--package", description = "an entity or repository package; repeatable (default: every class)")
    List<String> packages = new ArrayList<>();

    @Option(names = "--jdbc-url", description = "the existing database, read-only: sizes, writes, pg_stats, pg_stat_statements")
    String jdbcUrl;

    @Option(names = "--user", defaultValue = "${env:SHARDWISE_USER}", description = "its role")
    String user;

    @Option(names = "--password", defaultValue = "${env:SHARDWISE_PASSWORD}", description = "its password")
    String password;

    @Option(names = "--query-log", description = "weigh each query by its occurrences in this file: a PostgreSQL"
        + " log written with log_min_duration_statement = 0, or SQL statements one a line (instead of"
        + " pg_stat_statements' calls)")
    Path queryLog;

    @Option(names = "--json", description = "write the advice as JSON to this file (- for standard output)")
    Path json;

    @Option(names = "--patch", description = "write the annotations to add, per class, to this file")
    Path patch;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      new AdvisorRun(classes, packages, jdbcUrl, user, password, json, patch, queryLog).run(spec.commandLine().getOut());
      return 0;
    }
  }

  /**
   * {@code shardwise generate-completion}: the bash completion script of every command and option,
   * generated by picocli from this command tree, so it never lags behind a new option.
   */
  @Command(name = "generate-completion", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      description = "Prints the bash completion script of shardwise (zsh reads it too after bashcompinit).",
      footer = {"%nExamples:", "  source <(shardwise generate-completion)                         # this shell",
          "  shardwise generate-completion > /etc/bash_completion.d/shardwise     # every shell"})
  static final class GenerateCompletion implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      out.print(picocli.AutoComplete.bash("shardwise", spec.root().commandLine()));
      out.flush();
      return 0;
    }
  }

  /** How to log in to the databases, and any other Shardwise setting; the same for every command that connects. */
  static final class Login {
    @Option(names = "--user", description = "role for the control database and the shards", defaultValue = "${env:SHARDWISE_USER}")
    String user;

    @Option(names = "--password", description = "its password (default: $SHARDWISE_PASSWORD)",
        defaultValue = "${env:SHARDWISE_PASSWORD}")
    String password;

    @Option(names = "--set", description = "a Shardwise setting, e.g. --set shardwise.reshard.pause_limit_ms=50")
    Map<String, String> settings = new HashMap<>();

    /** The {@code --set} settings with the credentials. */
    Map<String, Object> settings() {
      Map<String, Object> all = new HashMap<>(settings);
      if (user != null) {
        all.put(ShardwiseSettings.USER, user);
      }
      if (password != null) {
        all.put(ShardwiseSettings.PASSWORD, password);
      }
      return all;
    }
  }

  /** Where the control database is and how to log in; the same for every reshard subcommand. */
  static final class Connection {
    @Option(names = "--control-url", required = true, description = "JDBC URL of the control database",
        defaultValue = "${env:SHARDWISE_CONTROL_URL}")
    String controlUrl;

    @Mixin
    Login login = new Login();

    Resharding resharding() {
      Map<String, Object> all = login.settings();
      all.put(ShardwiseSettings.CONTROL_URL, controlUrl);
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

  @Command(name = "reshard", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise reshard plan --help"},
      description = "Moves buckets between shards online.",
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
  @Command(name = "ddl", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise ddl --role app --global-index Customer.email=com.example.Customer"},
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

  /**
   * {@code shardwise migrate [--status | --repair --shard ID]}: the Flyway scripts of
   * {@code --locations} applied to every shard primary, one shard after the other; stops at the first
   * failing shard and says what to do; running it again continues where each shard is. The shards
   * come from the control database ({@code --control-url}) or are listed ({@code --shard s0=URL ...}).
   */
  @Command(name = "migrate", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise migrate --control-url $URL"
          + " --locations filesystem:db/migration   (--status: changes nothing)"},
      description = "Applies the migration scripts to every shard primary (Flyway), or shows each shard's version.")
  static final class Migrate implements Callable<Integer> {
    @Option(names = "--control-url", description = "JDBC URL of the control database, whose shard map lists the"
        + " shards (default: $SHARDWISE_CONTROL_URL)", defaultValue = "${env:SHARDWISE_CONTROL_URL}")
    String controlUrl;

    @Option(names = "--shard", paramLabel = "ID=JDBC_URL", description = "a shard and its primary, instead of a"
        + " control database; repeat in shard order")
    Map<String, String> shards = new java.util.LinkedHashMap<>();

    @Option(names = "--locations", description = "Flyway locations of the scripts, comma-separated (default:"
        + " classpath:db/migration)")
    String locations;

    @Mixin
    Login login = new Login();

    @Option(names = "--status", description = "Shows which shard is at which version and what is pending; changes"
        + " nothing. Exit code 3 when the shards differ or scripts are pending.")
    boolean status;

    @Option(names = "--repair", description = "Clears the failed entry a non-transactional script left on --shard-id"
        + " (undo what it applied first), then stops; run migrate again after it.")
    boolean repair;

    @Option(names = "--shard-id", description = "the shard to repair")
    String repairShard;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      io.shardwise.hibernate.migrations.Migrations migrations = Shardwise.migrations(settings());
      if (status) {
        List<io.shardwise.hibernate.migrations.ShardSchemaVersion> versions = migrations.status();
        versions.forEach(out::println);
        out.flush();
        boolean level = versions.stream().map(io.shardwise.hibernate.migrations.ShardSchemaVersion::shownVersion)
            .distinct().count() <= 1 && versions.stream().allMatch(v -> v.pendingScripts() == 0);
        return level ? 0 : 3;
      }
      if (repair) {
        if (repairShard == null) {
          throw new IllegalArgumentException("--repair needs --shard-id: the shard whose failed entry to clear");
        }
        migrations.repair(repairShard);
        out.println(repairShard + ": repaired; run `shardwise migrate` to apply the remaining scripts");
        out.flush();
        return 0;
      }
      try {
        out.println(migrations.migrate());
        out.flush();
        return 0;
      } catch (io.shardwise.hibernate.migrations.MigrationFailedException e) {
        out.println(e.report());
        out.flush();
        spec.commandLine().getErr().println("shardwise: " + e.getMessage());
        spec.commandLine().getErr().flush();
        return 5;
      }
    }

    private Map<String, Object> settings() {
      Map<String, Object> all = login.settings();
      if (!shards.isEmpty()) {
        all.put(ShardwiseSettings.SHARDS, String.join(",", shards.keySet()));
        shards.forEach((id, url) -> all.put(ShardwiseSettings.SHARD_PREFIX + id + ".url", url));
      } else if (controlUrl != null && !controlUrl.isBlank()) {
        all.put(ShardwiseSettings.CONTROL_URL, controlUrl);
      } else {
        throw new IllegalArgumentException("name the shards: --control-url (or $SHARDWISE_CONTROL_URL), or --shard"
            + " ID=JDBC_URL for each shard");
      }
      if (locations != null) {
        all.put(ShardwiseSettings.MIGRATIONS_LOCATIONS, locations);
      }
      return all;
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

    @Override
    public final Integer call() {
      try {
        return run();
      } finally {
        out().flush();
      }
    }

    /** The command; what it prints goes to {@link #out()}, flushed when it returns. */
    abstract int run();

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

  @Command(name = "plan", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise reshard plan --control-url $URL --from s0 --to s1"
          + " --buckets 0-99 --table purchase_order:merchant_id:long"},
      description = "Shows what a move would do (buckets, tables, rows, bytes); changes nothing.")
  static final class Plan extends Step {
    @Mixin
    MoveOptions move = new MoveOptions();

    @Override
    int run() {
      out().print(connection.resharding().plan(move.request()).describe());
      return 0;
    }
  }

  @Command(name = "start", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise reshard start --control-url $URL --from s0 --to s1"
          + " --buckets 0-99 --table purchase_order:merchant_id:long"},
      description = "Starts a move and runs it to VERIFIED: copy, catch-up, verification.")
  static final class Start extends Step {
    @Mixin
    MoveOptions move = new MoveOptions();

    @Override
    int run() {
      ReshardWorkflow w = connection.resharding().start(move.request(), bar());
      out().println();
      out().println(w + (w.lastError() == null ? "" : "\n" + w.lastError()));
      return 0;
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise reshard resume --control-url $URL mv1a2b3c4d"},
      description = "Continues a move from its recorded phase (after a crash).")
  static final class Resume extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    int run() {
      ReshardWorkflow w = connection.resharding().resume(id, bar());
      out().println();
      out().println(w);
      return 0;
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise reshard status"
          + " --control-url $URL mv1a2b3c4d   (without WORKFLOW: every move)"},
      description = "Shows a move (objects it created, catch-up lag) or lists all moves.")
  static final class Status extends Step {
    @Parameters(paramLabel = "WORKFLOW", arity = "0..1")
    String id;

    @Override
    int run() {
      Resharding moves = connection.resharding();
      if (id == null) {
        List<ReshardWorkflow> all = moves.workflows();
        all.forEach(w -> out().println(w));
        if (all.isEmpty()) {
          out().println("No moves are recorded in the control database.");
        }
      } else {
        out().print(moves.status(id).describe());
      }
      return 0;
    }
  }

  @Command(name = "verify", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise reshard verify --control-url $URL mv1a2b3c4d"},
      description = "Compares source and target bucket by bucket; lists differing keys.")
  static final class Verify extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    int run() {
      VerificationReport report = connection.resharding().verify(id, bar());
      out().println();
      out().print(report.describe());
      return report.equal() ? 0 : 3;
    }
  }

  @Command(name = "switch-reads", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise reshard switch-reads --control-url $URL mv1a2b3c4d"},
      description = "Serves reads of the moving buckets from the target.")
  static final class SwitchReads extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    int run() {
      out().println(connection.resharding().switchReads(id));
      return 0;
    }
  }

  @Command(name = "switch-writes", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise reshard switch-writes --control-url $URL mv1a2b3c4d"
          + " --set shardwise.reshard.pause_limit_ms=100"},
      description = "Hands the buckets to the target, pausing their writes at most"
      + " shardwise.reshard.pause_limit_ms; abandons the switch (writes stay on the source) if that is not enough.")
  static final class SwitchWrites extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    int run() {
      SwitchResult result = connection.resharding().switchWrites(id);
      out().println(result.describe());
      return result.switched() ? 0 : 4;
    }
  }

  @Command(name = "rollback", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise reshard rollback --control-url $URL mv1a2b3c4d"},
      description = "Returns the reads of the moving buckets to the source; after"
      + " switch-writes also their writes, once the source has applied every write the target accepted (pausing them"
      + " at most shardwise.reshard.pause_limit_ms; exit 4 if abandoned, writes stay on the target).")
  static final class Rollback extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    int run() {
      Resharding moves = connection.resharding();
      ReshardPhase phase = workflow(moves).map(ReshardWorkflow::phase).orElse(null);
      if (phase != ReshardPhase.WRITES_SWITCHED && phase != ReshardPhase.ROLLING_BACK_WRITES) {
        out().println(moves.rollback(id));
        return 0;
      }
      SwitchResult result = moves.rollbackWrites(id);
      out().println(result.describeRollback());
      workflow(moves).ifPresent(out()::println);
      return result.switched() ? 0 : 4;
    }

    private java.util.Optional<ReshardWorkflow> workflow(Resharding moves) {
      return moves.workflows().stream().filter(w -> w.id().equals(id)).findFirst();
    }
  }

  @Command(name = "complete", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise reshard complete --control-url $URL mv1a2b3c4d"},
      description = "Deletes the moved rows from the source and drops what the move created.")
  static final class Complete extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    int run() {
      ReshardWorkflow w = connection.resharding().complete(id, bar());
      out().println();
      out().println(w);
      return 0;
    }
  }

  @Command(name = "cancel", mixinStandardHelpOptions = true, versionProvider = ShardwiseCli.Version.class,
      footer = {"%nExample:", "  shardwise reshard cancel --control-url $URL mv1a2b3c4d"},
      description = "Abandons a move before its write switch, dropping everything it created.")
  static final class Cancel extends Step {
    @Parameters(paramLabel = "WORKFLOW")
    String id;

    @Override
    int run() {
      out().println(connection.resharding().cancel(id));
      return 0;
    }
  }
}
