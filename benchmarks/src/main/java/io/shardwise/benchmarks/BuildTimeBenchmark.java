package io.shardwise.benchmarks;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * What the build-time checks cost a build: {@code javac} over a generated sharded model
 * ({@link BuildTimeModel}) at several query counts, in four configurations that differ only in
 * the processors they run (none, hibernate-processor, Shardwise, both), plus the incremental case:
 * one extra file with a query that leaves its shard key unpinned, compiled alone against the
 * model's output. Each compilation is a separate {@code javac} process, measured by GNU time
 * ({@code /usr/bin/time}): wall time, CPU time (user + sys) and maximum resident set size.
 *
 * <p>The machine is shared, so every configuration runs once per round, in an order that rotates
 * from round to round, and the report gives medians over the rounds. All four configurations use
 * the same class path and processor path; only {@code -proc:none} or {@code -processor} differ, so
 * the differences are the processors' work. The class path is what the model needs and no more: a
 * jar of the {@code jakarta.persistence} and {@code io.shardwise.annotations} classes, copied from
 * this benchmark's class path. The processor path is, by default ({@code processorpath=jars}), the
 * processors' jars and their runtime dependencies as separate jars, the way Maven's
 * {@code annotationProcessorPaths} gives them to a user's {@code javac}: the Shardwise processor's
 * jar and {@code annotation-processor/target/processor-path.txt} (its dependencies as Maven resolves
 * them), then {@code benchmarks/target/hibernate-processor-path.txt} (what hibernate-processor adds);
 * both files are written by {@code package}. With {@code processorpath=shaded} it is this
 * benchmark's own class path, one shaded jar holding everything.
 *
 * <p>Every run is checked: a full build must succeed (and leave the processors' output behind), and
 * the incremental compilation must fail with {@code [QueryWithoutShardKey]} on the extra file when
 * Shardwise runs, and succeed otherwise.
 *
 * <p>Arguments ({@code key=value}): {@code sizes=200,1000,4000} (query counts, multiples of
 * {@value BuildTimeModel#QUERIES_PER_GROUP}), {@code rounds=5}, {@code work=target/build-time}
 * (sources and class outputs), {@code docs=docs/benchmarks.md} ({@code none} to only print the
 * report), {@code processorpath=jars} (or {@code shaded}), {@code javacjvm=-XX:TieredStopAtLevel=1}
 * (JVM flags for every {@code javac} run alike, comma-separated: what a user's build could set). Run: {@code mvn -B -q -pl benchmarks
 * -am package -DskipTests && java -cp benchmarks/target/benchmarks.jar
 * io.shardwise.benchmarks.BuildTimeBenchmark}.
 */
public final class BuildTimeBenchmark {

  static final String SECTION = "## Build-time checks";
  static final String BEGIN =
      "<!-- BuildTimeBenchmark:begin (generated; rerun the benchmark to replace) -->";
  static final String END = "<!-- BuildTimeBenchmark:end -->";
  private static final String TAG = "[build-time] ";
  private static final Path GNU_TIME = Path.of("/usr/bin/time");

  enum Config {
    NONE("no processor", null),
    HIBERNATE("hibernate-processor", "org.hibernate.processor.HibernateProcessor"),
    SHARDWISE("Shardwise", "io.shardwise.processor.ShardwiseProcessor"),
    BOTH("both", "org.hibernate.processor.HibernateProcessor,io.shardwise.processor.ShardwiseProcessor");

    final String label;
    final String processors;

    Config(String label, String processors) {
      this.label = label;
      this.processors = processors;
    }

    boolean shardwise() {
      return this == SHARDWISE || this == BOTH;
    }

    boolean hibernate() {
      return this == HIBERNATE || this == BOTH;
    }
  }

  /** One javac process: wall and CPU seconds, max RSS in KiB, exit code, what it printed. */
  record Run(double wall, double cpu, long maxRssKiB, int exit, String output) {}

  private record Options(List<Integer> sizes, int rounds, Path work, Path docs, boolean shaded,
      List<String> javacJvm) {
    static Options parse(String[] args) {
      Map<String, String> values = Workloads.keyValues(args,
          "sizes=200,1000,4000 rounds=5 work=DIR docs=FILE|none processorpath=jars|shaded javacjvm=FLAG,...");
      List<Integer> sizes = new ArrayList<>();
      for (String size : values.getOrDefault("sizes", "200,1000,4000").split(",")) {
        int queries = Workloads.positive("sizes", Integer.parseInt(size.trim()));
        BuildTimeModel.groups(queries);
        sizes.add(queries);
      }
      int rounds = Workloads.positive("rounds", Integer.parseInt(values.getOrDefault("rounds", "5")));
      Path work = Path.of(values.getOrDefault("work", "target/build-time")).toAbsolutePath();
      String docs = values.getOrDefault("docs", "docs/benchmarks.md");
      String processorPath = values.getOrDefault("processorpath", "jars");
      if (!processorPath.equals("jars") && !processorPath.equals("shaded")) {
        throw new IllegalArgumentException("processorpath=" + processorPath + ": use jars (the"
            + " processors' dependencies as separate jars, the default) or shaded");
      }
      List<String> javacJvm = values.containsKey("javacjvm")
          ? List.of(values.get("javacjvm").split(",")) : List.of();
      if (javacJvm.stream().anyMatch(flag -> !flag.startsWith("-"))) {
        throw new IllegalArgumentException("javacjvm=" + values.get("javacjvm") + ": JVM flags for every javac"
            + " run, comma-separated, e.g. javacjvm=-XX:TieredStopAtLevel=1");
      }
      values.keySet().removeAll(List.of("sizes", "rounds", "work", "docs", "processorpath", "javacjvm"));
      if (!values.isEmpty()) {
        throw new IllegalArgumentException("Unknown arguments " + values.keySet()
            + "; known: sizes, rounds, work, docs, processorpath, javacjvm");
      }
      return new Options(sizes, rounds, work, docs.equals("none") ? null : Path.of(docs),
          processorPath.equals("shaded"), javacJvm);
    }
  }

  /** The packages the generated model compiles against. */
  private static final List<String> MODEL_API = List.of("jakarta/persistence/", "io/shardwise/annotations/");

  private final Options options;
  private final Path javac;
  private final String ownClassPath = System.getProperty("java.class.path");
  private final String processorPath;
  private String classPath;
  private final List<Double> loadAverages = new ArrayList<>();

  private BuildTimeBenchmark(Options options) {
    this.options = options;
    this.javac = Path.of(System.getProperty("java.home"), "bin", "javac");
    if (!Files.isExecutable(javac)) {
      throw new IllegalStateException("No javac at " + javac + ": run this benchmark on a JDK");
    }
    if (!Files.isExecutable(GNU_TIME)) {
      throw new IllegalStateException("No GNU time at " + GNU_TIME
          + ": it measures each javac's CPU time and max RSS (Debian: apt-get install time)");
    }
    this.processorPath = options.shaded() ? ownClassPath : dependencyJars();
  }

  /**
   * The processors and their runtime dependencies as separate jars, from the files the build writes
   * next to the modules' jars (this benchmark runs from {@code benchmarks/target/benchmarks.jar}).
   */
  private String dependencyJars() {
    Path benchmarkTarget = Path.of(ownClassPath.split(File.pathSeparator)[0]).toAbsolutePath().getParent();
    Path processorTarget =
        benchmarkTarget.getParent().resolveSibling("annotation-processor").resolve("target");
    List<String> jars = new ArrayList<>();
    try (Stream<Path> files = Files.list(processorTarget)) {
      files.filter(file -> file.getFileName().toString().matches("shardwise-processor-[^/]*\\.jar")
              && !file.getFileName().toString().matches(".*-(sources|javadoc|tests)\\.jar"))
          .forEach(file -> jars.add(file.toString()));
    } catch (IOException e) {
      throw new UncheckedIOException("No " + processorTarget + ": package the annotation-processor module", e);
    }
    if (jars.size() != 1) {
      throw new IllegalStateException("Expected one shardwise-processor jar in " + processorTarget
          + ", found " + jars + ": run mvn -pl benchmarks -am package -DskipTests");
    }
    for (Path list : List.of(processorTarget.resolve("processor-path.txt"),
        benchmarkTarget.resolve("hibernate-processor-path.txt"))) {
      try {
        String listed = Files.readString(list, StandardCharsets.UTF_8).strip();
        for (String jar : listed.split(File.pathSeparator)) {
          if (!Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException(list + " names " + jar + ", which does not exist");
          }
          if (!jars.contains(jar)) {
            jars.add(jar);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("No " + list + ": run mvn -pl benchmarks -am package"
            + " -DskipTests, or pass processorpath=shaded", e);
      }
    }
    return String.join(File.pathSeparator, jars);
  }

  /** The processor path in words, for the report. */
  private String processorPathDescription() {
    String[] entries = processorPath.split(File.pathSeparator);
    long bytes = Arrays.stream(entries).map(Path::of).mapToLong(BuildTimeBenchmark::size).sum();
    return options.shaded()
        ? String.format(Locale.ROOT, "this benchmark's one shaded jar (%.0f MiB)", bytes / 1048576.0)
        : String.format(Locale.ROOT, "the processors' jars and their runtime dependencies, %d"
            + " separate jars (%.0f MiB), as Maven's `annotationProcessorPaths` gives them",
            entries.length, bytes / 1048576.0);
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    String report = new BuildTimeBenchmark(options).run();
    System.out.println(report);
    if (options.docs() != null) {
      Workloads.writeSection(options.docs(), SECTION, BEGIN, END, "", report);
      System.out.println(TAG + "results written to " + options.docs());
    }
  }

  private String run() throws IOException, InterruptedException {
    classPath = modelApiJar(options.work().resolve("model-api.jar")).toString();
    Map<Integer, List<Path>> sources = new LinkedHashMap<>();
    Path extra = BuildTimeModel.writeOneMoreFile(options.work().resolve("extra"));
    for (int size : options.sizes()) {
      Path root = options.work().resolve("model-" + size);
      deleteTree(root);
      sources.put(size, BuildTimeModel.write(root.resolve("src"), size));
      // Warm the page cache once: the first read of fresh sources would count against whoever
      // runs first.
      full(size, Config.NONE, sources.get(size));
    }
    Map<Integer, Map<Config, List<Run>>> fulls = new LinkedHashMap<>();
    Map<Integer, Map<Config, List<Run>>> increments = new LinkedHashMap<>();
    Config[] configs = Config.values();
    for (int round = 0; round < options.rounds(); round++) {
      loadAverages.add(Workloads.loadAverage());
      for (int size : options.sizes()) {
        for (int i = 0; i < configs.length; i++) {
          Config config = configs[(i + round) % configs.length];
          Run run = full(size, config, sources.get(size));
          fulls.computeIfAbsent(size, s -> new EnumMap<>(Config.class))
              .computeIfAbsent(config, c -> new ArrayList<>()).add(run);
          Run increment = increment(size, config, extra);
          increments.computeIfAbsent(size, s -> new EnumMap<>(Config.class))
              .computeIfAbsent(config, c -> new ArrayList<>()).add(increment);
          System.out.printf(Locale.ROOT, "%sround %d, %d queries, %s: %.2f s wall, %.2f s CPU,"
                  + " %d MiB; one more file: %.2f s%n", TAG, round + 1, size, config.label,
              run.wall(), run.cpu(), run.maxRssKiB() / 1024, increment.wall());
        }
      }
    }
    loadAverages.add(Workloads.loadAverage());
    return report(fulls, increments);
  }

  /** The whole model, compiled from scratch into this configuration's own output directory. */
  private Run full(int size, Config config, List<Path> sources) throws IOException, InterruptedException {
    Path out = output(size, config);
    deleteTree(out);
    Files.createDirectories(out.resolve("generated"));
    Run run = javac(config, out, classPath, sources);
    if (run.exit() != 0) {
      throw new IllegalStateException(size + " queries, " + config.label + ": the model does not"
          + " compile (exit " + run.exit() + "):\n" + tail(run.output()));
    }
    if (config.shardwise() && !Files.exists(out.resolve("shardwise/import/Order0"))) {
      throw new IllegalStateException(config.label + ": Shardwise left no entity index in " + out);
    }
    if (config.hibernate() && !Files.exists(out.resolve("model/Order0_.class"))) {
      throw new IllegalStateException(config.label + ": hibernate-processor left no metamodel in " + out);
    }
    return run;
  }

  /** The extra file alone, against the full build's output, as an IDE or incremental build does. */
  private Run increment(int size, Config config, Path extra) throws IOException, InterruptedException {
    Path out = output(size, config).resolveSibling(config.name().toLowerCase(Locale.ROOT) + "-one-more");
    deleteTree(out);
    Files.createDirectories(out.resolve("generated"));
    Run run = javac(config, out, output(size, config) + File.pathSeparator + classPath, List.of(extra));
    boolean reported = run.output().contains("[QueryWithoutShardKey]")
        && run.output().contains("OneMore.java");
    if (config.shardwise() && (run.exit() == 0 || !reported)) {
      throw new IllegalStateException(config.label + ": the unpinned query of the one extra file"
          + " was not reported (exit " + run.exit() + "):\n" + tail(run.output()));
    }
    if (!config.shardwise() && run.exit() != 0) {
      throw new IllegalStateException(config.label + ": the one extra file does not compile:\n"
          + tail(run.output()));
    }
    return run;
  }

  private Path output(int size, Config config) {
    return options.work().resolve("model-" + size).resolve(config.name().toLowerCase(Locale.ROOT));
  }

  private Run javac(Config config, Path out, String compileClassPath, List<Path> sources)
      throws IOException, InterruptedException {
    List<String> args = new ArrayList<>(List.of("-d", out.toString(),
        "-s", out.resolve("generated").toString(), "-classpath", compileClassPath,
        "-encoding", "UTF-8", "-implicit:none", "-nowarn", "-Xlint:none"));
    if (config.processors == null) {
      args.add("-proc:none");
    } else {
      args.addAll(List.of("-processorpath", processorPath, "-processor", config.processors));
    }
    sources.forEach(source -> args.add(source.toString()));
    Path argFile = out.resolve("javac.args");
    Files.write(argFile, args.stream().map(BuildTimeBenchmark::quoted).toList(), StandardCharsets.UTF_8);
    Path times = out.resolve("time.txt");
    Path log = out.resolve("javac.log");
    List<String> command = new ArrayList<>(List.of(GNU_TIME.toString(), "-f", "%e %U %S %M",
        "-o", times.toString(), javac.toString()));
    options.javacJvm().forEach(flag -> command.add("-J" + flag));
    command.add("@" + argFile);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    long start = System.nanoTime();
    int exit = builder.start().waitFor();
    double wall = (System.nanoTime() - start) / 1e9;
    List<String> lines = Files.readAllLines(times, StandardCharsets.UTF_8);
    String[] fields = lines.get(lines.size() - 1).trim().split("\\s+");
    if (fields.length != 4) {
      throw new IllegalStateException("Unexpected GNU time output in " + times + ": " + lines);
    }
    double cpu = Double.parseDouble(fields[1]) + Double.parseDouble(fields[2]);
    return new Run(wall, cpu, Long.parseLong(fields[3]), exit, Files.readString(log, StandardCharsets.UTF_8));
  }

  // --- the report -------------------------------------------------------------------------------

  private String report(Map<Integer, Map<Config, List<Run>>> fulls,
      Map<Integer, Map<Config, List<Run>>> increments) {
    StringBuilder out = new StringBuilder(BEGIN).append('\n');
    double minLoad = loadAverages.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    double maxLoad = loadAverages.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    out.append(String.format(Locale.ROOT, "Run %s: JDK %s, %d cores (shared: other builds ran at"
            + " the same time; 1-minute load average %.1f–%.1f at the rounds' starts), median of"
            + " %d rounds, configurations in rotating order. Processor path: %s.%s Wall and CPU"
            + " (user + sys) in seconds, max RSS in MiB, each of one `javac` process.%n%n",
        LocalDate.now(), System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(), minLoad, maxLoad, options.rounds(),
        processorPathDescription(), options.javacJvm().isEmpty() ? ""
            : " Every `javac` ran with " + String.join(" ", options.javacJvm()) + "."));
    out.append("| queries | entities | configuration | wall | CPU | max RSS | wall added | ms added per query |\n");
    out.append("|---:|---:|---|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<Integer, Map<Config, List<Run>>> size : fulls.entrySet()) {
      int queries = size.getKey();
      int entities = BuildTimeModel.groups(queries) * 5 + BuildTimeModel.REFERENCE_TABLES;
      double base = Workloads.median(size.getValue().get(Config.NONE), Run::wall);
      for (Config config : Config.values()) {
        List<Run> runs = size.getValue().get(config);
        double wall = Workloads.median(runs, Run::wall);
        out.append(String.format(Locale.ROOT, "| %,d | %,d | %s | %.2f | %.2f | %,d | %s | %s |%n",
            queries, entities, config.label, wall, Workloads.median(runs, Run::cpu),
            Math.round(Workloads.median(runs, r -> r.maxRssKiB() / 1024.0)),
            config == Config.NONE ? "" : String.format(Locale.ROOT, "%+.2f", wall - base),
            config == Config.NONE ? "" : String.format(Locale.ROOT, "%.2f", (wall - base) * 1000 / queries)));
      }
    }
    out.append("\nShardwise's own share, from the medians above (wall; CPU in brackets):\n\n");
    out.append("| queries | Shardwise alone, added | per query | hibernate-processor alone, added | Shardwise on top of hibernate-processor (both − hibernate) | per query | Shardwise ÷ hibernate-processor |\n");
    out.append("|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<Integer, Map<Config, List<Run>>> size : fulls.entrySet()) {
      int queries = size.getKey();
      Map<Config, List<Run>> runs = size.getValue();
      double none = Workloads.median(runs.get(Config.NONE), Run::wall);
      double noneCpu = Workloads.median(runs.get(Config.NONE), Run::cpu);
      double shardwise = Workloads.median(runs.get(Config.SHARDWISE), Run::wall) - none;
      double shardwiseCpu = Workloads.median(runs.get(Config.SHARDWISE), Run::cpu) - noneCpu;
      double hibernate = Workloads.median(runs.get(Config.HIBERNATE), Run::wall) - none;
      double hibernateCpu = Workloads.median(runs.get(Config.HIBERNATE), Run::cpu) - noneCpu;
      double onTop = Workloads.median(runs.get(Config.BOTH), Run::wall) - Workloads.median(runs.get(Config.HIBERNATE), Run::wall);
      double onTopCpu = Workloads.median(runs.get(Config.BOTH), Run::cpu) - Workloads.median(runs.get(Config.HIBERNATE), Run::cpu);
      out.append(String.format(Locale.ROOT,
          "| %,d | %+.2f s (%+.2f s) | %.2f ms | %+.2f s (%+.2f s) | %+.2f s (%+.2f s) | %.2f ms | %.2f |%n",
          queries, shardwise, shardwiseCpu, shardwise * 1000 / queries, hibernate, hibernateCpu,
          onTop, onTopCpu, onTop * 1000 / queries, shardwise / hibernate));
    }
    out.append("\nIncremental case: `reports/OneMore.java` (one query without its shard key, one with"
        + " it, naming `Order0` by entity name) compiled alone against the full build's output,"
        + " with the same processors:\n\n");
    out.append("| queries in the model | configuration | wall | CPU | max RSS | unpinned query reported |\n");
    out.append("|---:|---|---:|---:|---:|---|\n");
    for (Map.Entry<Integer, Map<Config, List<Run>>> size : increments.entrySet()) {
      for (Config config : Config.values()) {
        List<Run> runs = size.getValue().get(config);
        out.append(String.format(Locale.ROOT, "| %,d | %s | %.2f | %.2f | %,d | %s |%n",
            size.getKey(), config.label, Workloads.median(runs, Run::wall), Workloads.median(runs, Run::cpu),
            Math.round(Workloads.median(runs, r -> r.maxRssKiB() / 1024.0)),
            config.shardwise() ? "yes, `[QueryWithoutShardKey]` (build fails)" : "no (build passes)"));
      }
    }
    return out.append(END).append('\n').toString();
  }

  /** A jar of the classes under {@link #MODEL_API}, copied from this benchmark's class path. */
  private Path modelApiJar(Path jar) throws IOException {
    Files.createDirectories(jar.getParent());
    java.util.Set<String> copied = new java.util.HashSet<>();
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      for (String entry : ownClassPath.split(File.pathSeparator)) {
        Path path = Path.of(entry);
        if (Files.isDirectory(path)) {
          try (Stream<Path> files = Files.walk(path)) {
            for (Path file : (Iterable<Path>) files::iterator) {
              String name = path.relativize(file).toString().replace(File.separatorChar, '/');
              if (Files.isRegularFile(file) && modelApi(name) && copied.add(name)) {
                out.putNextEntry(new JarEntry(name));
                Files.copy(file, out);
                out.closeEntry();
              }
            }
          }
        } else if (entry.endsWith(".jar") && Files.isRegularFile(path)) {
          try (JarFile in = new JarFile(path.toFile())) {
            for (JarEntry e : (Iterable<JarEntry>) in.stream()::iterator) {
              if (!e.isDirectory() && modelApi(e.getName()) && copied.add(e.getName())) {
                out.putNextEntry(new JarEntry(e.getName()));
                in.getInputStream(e).transferTo(out);
                out.closeEntry();
              }
            }
          }
        }
      }
    }
    for (String api : MODEL_API) {
      if (copied.stream().noneMatch(name -> name.startsWith(api))) {
        throw new IllegalStateException("No classes under " + api + " on the class path " + ownClassPath);
      }
    }
    return jar;
  }

  private static boolean modelApi(String name) {
    return name.endsWith(".class") && MODEL_API.stream().anyMatch(name::startsWith);
  }

  private static String quoted(String arg) {
    return "\"" + arg.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  private static String tail(String text) {
    String[] lines = text.split("\n");
    return String.join("\n", Arrays.copyOfRange(lines, Math.max(0, lines.length - 30), lines.length));
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : (Iterable<Path>) paths.sorted((a, b) -> b.compareTo(a))::iterator) {
        Files.delete(path);
      }
    }
  }
}
