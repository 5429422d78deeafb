package io.shardwise.cli;

import static io.shardwise.cli.CommandLineAsUserTest.java;
import static io.shardwise.cli.CommandLineAsUserTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.cli.CommandLineAsUserTest.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the package phase built, run as a user runs it (failsafe, after {@code package}):
 * {@code java -jar shardwise-cli-<version>-all.jar} with nothing else on the class path, and the
 * distribution's launcher {@code bin/shardwise} unzipped with the system's {@code unzip}, so the
 * executable bit the zip carries is tested too.
 */
class ShardwiseJarIT {
  static Path jar;
  static Path dist;
  static String version;

  @TempDir
  static Path work;

  @BeforeAll
  static void findWhatThePackagePhaseBuilt() throws Exception {
    jar = built("-all.jar");
    dist = built("-dist.zip");
    String name = jar.getFileName().toString();
    version = name.substring("shardwise-cli-".length(), name.length() - "-all.jar".length());
    Run unzip = run(List.of("unzip", "-q", dist.toString(), "-d", work.toString()), Map.of());
    assertEquals(0, unzip.exit(), unzip.both());
  }

  private static Path built(String suffix) throws Exception {
    try (Stream<Path> files = Files.list(Path.of("target"))) {
      List<Path> found = files.filter(f -> f.getFileName().toString().startsWith("shardwise-cli-")
          && f.getFileName().toString().endsWith(suffix)).toList();
      assertEquals(1, found.size(), "one target/shardwise-cli-*" + suffix + " (run through mvn verify): " + found);
      return found.get(0);
    }
  }

  private static Run javaJar(String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of(java(), "-jar", jar.toString()));
    command.addAll(List.of(args));
    return run(command, Map.of());
  }

  @Test
  void theJarPrintsItsVersionAndTheAdviseHelpWithAnExample() throws Exception {
    Run shown = javaJar("--version");
    assertEquals(0, shown.exit(), shown.both());
    assertTrue(shown.out().startsWith("shardwise " + version + "\nJava "), shown.both());

    Run help = javaJar("advise", "--help");
    assertEquals(0, help.exit(), help.both());
    assertTrue(help.out().startsWith("Usage: shardwise advise"), help.both());
    assertTrue(help.out().contains("--query-log") && help.out().contains("Examples:\n  shardwise advise --classes"), help.both());

    Run unknown = javaJar("advise", "--classes", "target/classes", "--no-such-option");
    assertEquals(2, unknown.exit(), unknown.both());
    assertTrue(unknown.err().startsWith("Unknown option: '--no-such-option'"), unknown.both());
  }

  @Test
  void theJarAdvisesOnAnApplicationsClassesGivenByPathOnly() throws Exception {
    Path classes = AdviseCommandTest.compileAdoptedBefore(work.resolve("app-classes"));
    String persistenceApi = java.util.Arrays.stream(System.getProperty("java.class.path").split(":"))
        .filter(entry -> entry.contains("jakarta.persistence-api")).findFirst().orElseThrow();
    // as `mvn dependency:build-classpath` gives the application's jars: one class path, colon-separated
    Run advice = javaJar("advise", "--classes", classes + ":" + persistenceApi, "--package",
        "io.shardwise.sample.adopted");
    assertEquals(0, advice.exit(), advice.both());
    assertTrue(advice.out().contains("== Root Owner: shard key Owner.id =="), advice.both());
  }

  @Test
  void theLauncherFindsJavaAndTheJarBesideIt() throws Exception {
    Path launcher = work.resolve("shardwise-" + version).resolve("bin").resolve("shardwise");
    assertTrue(Files.isExecutable(launcher), "the zip keeps bin/shardwise executable: " + launcher);
    String javaHome = System.getProperty("java.home");

    Run shown = run(List.of(launcher.toString(), "--version"), Map.of("JAVA_HOME", javaHome));
    assertEquals(0, shown.exit(), shown.both());
    assertTrue(shown.out().startsWith("shardwise " + version), shown.both());

    Run refused = run(List.of(launcher.toString(), "reshard", "status"), Map.of("JAVA_HOME", javaHome));
    assertEquals(2, refused.exit(), "the command's own exit code passes through: " + refused.both());
    assertTrue(refused.err().contains("--control-url"), refused.both());

    Run noJava = run(List.of("/bin/bash", launcher.toString(), "--version"),
        Map.of("JAVA_HOME", work.resolve("no-jdk").toString(), "PATH", work.resolve("no-bin").toString()));
    assertEquals(127, noJava.exit(), noJava.both());
    assertEquals("shardwise: no Java found: set JAVA_HOME, or put java (17 or later) on the PATH\n", noJava.err());

    Run noJar = run(List.of(launcher.toString(), "--version"), Map.of("JAVA_HOME", javaHome, "SHARDWISE_JAR",
        work.resolve("missing.jar").toString()));
    assertEquals(127, noJar.exit(), noJar.both());
    assertTrue(noJar.err().contains("missing.jar not found: set SHARDWISE_JAR"), noJar.both());
  }

  @Test
  void theGeneratedCompletionCompletesCommandsAndOptionsInBash() throws Exception {
    Path script = work.resolve("shardwise-completion.bash");
    Run generated = javaJar("generate-completion");
    assertEquals(0, generated.exit(), generated.both());
    Files.writeString(script, generated.out());

    String complete = "source " + script + "; COMP_WORDS=(%s); COMP_CWORD=%d; _complete_shardwise;"
        + " printf '%%s\\n' \"${COMPREPLY[@]}\"";
    Run commands = run(List.of("/bin/bash", "-c", String.format(complete, "shardwise re", 1)), Map.of());
    assertEquals(0, commands.exit(), commands.both());
    assertEquals("reshard", commands.out().strip(), commands.both());
    Run options = run(List.of("/bin/bash", "-c", String.format(complete, "shardwise advise --qu", 2)), Map.of());
    assertEquals(0, options.exit(), options.both());
    assertEquals("--query-log", options.out().strip(), options.both());
  }
}
