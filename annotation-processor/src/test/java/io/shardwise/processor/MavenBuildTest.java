package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Real Maven builds of small applications under src/test/resources: one module whose build fails
 * on its query without a shard key (fixture-project), and two modules, entities in {@code domain}
 * and queries in {@code app} (fixture-multimodule), built in full, in maven-compiler-plugin's
 * incremental mode and one file at a time. The builds run offline and install nothing: the
 * processor path and the applications' dependencies are paths taken from this test's own class
 * path, so they check the processor exactly as this build just compiled it. Surefire passes
 * Maven's home and local repository (for the build's plugins).
 */
class MavenBuildTest {

  @Test
  void mvnCompileFailsOnAQueryWithoutTheShardKey() throws Exception {
    Path project = copyFixture("fixture-project");
    Build build = maven(project, false, "compile");

    assertNotEquals(0, build.exit, build.output);
    assertTrue(build.output.contains("COMPILATION ERROR"), build.output);
    String file = project.resolve("src/main/java/shop/PurchaseOrder.java").toString();
    assertTrue(build.output.contains(file + ":[12,"), "the error is on the @NamedQuery's line:\n" + build.output);
    assertTrue(build.output.contains("[QueryWithoutShardKey] Query \"from PurchaseOrder o where o.customer = :c\" uses"
        + " sharded entity PurchaseOrder o without pinning its shard key merchantId"), build.output);
    assertTrue(build.output.contains("Fix: add \"o.merchantId = :merchantId\" to the WHERE clause, or mark the query"
        + " @ScatterGather to run it on every shard."), build.output);
    assertTrue(!build.output.contains("PurchaseOrder.java:[11,"), "the pinned named query passes:\n" + build.output);
  }

  /**
   * The entities are in {@code domain}'s jar; {@code app} names them by entity name only. A clean
   * build passes; a new file with an unpinned query fails the build when it is the only file
   * compiled (maven-compiler-plugin without incremental mode compiles only stale sources, against
   * app's earlier output and domain's jar) and in the default incremental mode (which recompiles
   * the changed module). The processor path holds hibernate-processor beside Shardwise's, as an
   * application's does.
   */
  @Test
  void aMultiModuleBuildChecksEveryBuildOfTheQueryModuleAgainstTheEntityModule() throws Exception {
    multiModuleBuildChecksTheQueryModule(true);
  }

  /**
   * The same three builds with Shardwise's processor alone on the processor path (-Plong: in the
   * default build {@link #mvnCompileFailsOnAQueryWithoutTheShardKey} runs it alone, and the
   * multi-module builds run it beside hibernate-processor, as applications do).
   */
  @Test
  @Tag("long")
  void aMultiModuleBuildWithOnlyShardwisesProcessorChecksEveryBuildOfTheQueryModule() throws Exception {
    multiModuleBuildChecksTheQueryModule(false);
  }

  private void multiModuleBuildChecksTheQueryModule(boolean withHibernate) throws Exception {
    Path project = copyFixture("fixture-multimodule");
    Build clean = maven(project, withHibernate, "package");
    assertEquals(0, clean.exit, clean.output);
    Path domainJar = project.resolve("domain/target/domain-1.jar");
    try (JarFile jar = new JarFile(domainJar.toFile())) {
      assertNotNull(jar.getEntry("shardwise/import/Ord"), "domain's jar carries the entity index");
    }

    Path report = project.resolve("app/src/main/java/shop/app/Report.java");
    Files.writeString(report, """
        package shop.app;

        import jakarta.persistence.EntityManager;

        class Report {
          Object open(EntityManager em) {
            return em.createQuery("from Ord o where o.status = 'OPEN'").getResultList();
          }
        }
        """);
    String error = report + ":[7,";
    String message = "[QueryWithoutShardKey] Query \"from Ord o where o.status = 'OPEN'\" uses sharded entity"
        + " PurchaseOrder o without pinning its shard key merchantId";

    Build oneFile = maven(project, withHibernate, "package", "-Dmaven.compiler.useIncrementalCompilation=false");
    assertNotEquals(0, oneFile.exit, oneFile.output);
    assertTrue(oneFile.output.contains("Compiling 1 source file"), "only Report.java is compiled:\n" + oneFile.output);
    assertTrue(oneFile.output.contains(error) && oneFile.output.contains(message), oneFile.output);

    Build incremental = maven(project, withHibernate, "compile");
    assertNotEquals(0, incremental.exit, incremental.output);
    assertTrue(incremental.output.contains(error) && incremental.output.contains(message), incremental.output);
    assertFalse(incremental.output.contains("[UnresolvedEntity]"), incremental.output);
  }

  /**
   * A build whose processor path lost Shardwise (only hibernate-processor is left) fails on the
   * enforcer rule docs/compile-time-checks.md recommends, before anything is packaged.
   */
  @Test
  void withoutTheProcessorTheEntityModuleFailsTheGuard() throws Exception {
    Path project = copyFixture("fixture-multimodule");
    Build build = maven(project, Processors.HIBERNATE_ONLY, "package");
    assertNotEquals(0, build.exit, build.output);
    assertTrue(build.output.contains("shardwise-processor did not run on this module's entities"), build.output);
    assertFalse(Files.exists(project.resolve("domain/target/domain-1.jar")), build.output);
  }

  private enum Processors { SHARDWISE, SHARDWISE_AND_HIBERNATE, HIBERNATE_ONLY }

  private record Build(int exit, String output) {}

  private static Build maven(Path project, boolean withHibernate, String... goals) throws Exception {
    return maven(project, withHibernate ? Processors.SHARDWISE_AND_HIBERNATE : Processors.SHARDWISE, goals);
  }

  /** How long one fixture build (a child Maven JVM) may run before it is killed and the test fails. */
  private static final java.time.Duration BUILD_LIMIT = java.time.Duration.ofMinutes(5);

  private static Build maven(Path project, Processors processors, String... goals) throws Exception {
    List<String> classPath = Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
    String processorPath = classPath.stream()
        .filter(entry -> !entry.endsWith("test-classes"))
        .filter(entry -> Stream.of("junit", "opentest4j", "apiguardian", "jakarta.data-api").noneMatch(entry::contains))
        .filter(entry -> processors != Processors.SHARDWISE || !entry.contains("hibernate-processor"))
        .filter(entry -> processors != Processors.HIBERNATE_ONLY
            || Stream.of("annotation-processor", "shardwise-processor", "query-rules").noneMatch(entry::contains))
        .collect(Collectors.joining(File.pathSeparator));
    List<String> command = new ArrayList<>(List.of(mvn(), "-B", "-o"));
    command.addAll(List.of(goals));
    command.addAll(List.of(
        "-Dmaven.repo.local=" + required("maven.repo.local"),
        "-Dfixture.processorpath=" + processorPath,
        "-Dfixture.annotations="
            + asJar(entry(classPath, "annotations/target/classes", "shardwise-annotations-"), "annotations"),
        "-Dfixture.persistence=" + entry(classPath, "jakarta.persistence-api-")));
    Path log = Files.createTempFile(project, "build", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).directory(project.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    // a fixture build lives for seconds: C2 compiling on two busy cores only delays it (as for the
    // other tests' child JVMs, docs/testing.md)
    builder.environment().merge("MAVEN_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC", (a, b) -> a + " " + b);
    Process build = builder.start();
    // bounded: a stuck child build is killed (with its own children) and fails the test, never hangs the build
    if (!build.waitFor(BUILD_LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
      build.descendants().forEach(ProcessHandle::destroyForcibly);
      build.destroyForcibly();
      String output = Files.readString(log, StandardCharsets.UTF_8);
      throw new AssertionError("The fixture build " + String.join(" ", goals) + " in " + project + " did not finish"
          + " within " + BUILD_LIMIT.toSeconds() + " s and was killed; its last output:\n"
          + (output.length() <= 4000 ? output : "..." + output.substring(output.length() - 4000)));
    }
    return new Build(build.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  private static Path copyFixture(String name) throws IOException, URISyntaxException {
    Path source = Paths.get(MavenBuildTest.class.getResource("/" + name + "/pom.xml").toURI()).getParent();
    Path target = Paths.get("target", name + "-run").toAbsolutePath();
    if (Files.exists(target)) {
      try (Stream<Path> old = Files.walk(target)) {
        old.sorted((a, b) -> b.compareTo(a)).forEach(MavenBuildTest::delete);
      }
    }
    try (Stream<Path> files = Files.walk(source)) {
      for (Path from : (Iterable<Path>) files::iterator) {
        Path to = target.resolve(source.relativize(from).toString());
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else {
          Files.copy(from, to);
        }
      }
    }
    return target;
  }

  /**
   * A system-scope dependency must be a file: a reactor module's classes directory is packed into
   * a jar under target/ first; a jar is used as it is.
   */
  private static String asJar(String entry, String name) throws IOException {
    Path from = Paths.get(entry);
    if (!Files.isDirectory(from)) {
      return entry;
    }
    Path jar = Paths.get("target", "fixture-" + name + ".jar").toAbsolutePath();
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> files = Files.walk(from)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(file)) {
          out.putNextEntry(new JarEntry(from.relativize(file).toString().replace(File.separatorChar, '/')));
          Files.copy(file, out);
          out.closeEntry();
        }
      }
    }
    return jar.toString();
  }

  private static void delete(Path path) {
    try {
      Files.delete(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String mvn() {
    Path mvn = Paths.get(required("maven.home"), "bin", "mvn");
    assertTrue(Files.isExecutable(mvn), "no Maven at " + mvn);
    return mvn.toString();
  }

  private static String required(String property) {
    String value = System.getProperty(property);
    assertNotNull(value, property + " is not set: surefire passes it (annotation-processor/pom.xml)");
    return value;
  }

  /** The class-path entry of a reactor module's classes directory, or of a jar by its name's start. */
  private static String entry(List<String> classPath, String... names) {
    return classPath.stream()
        .filter(e -> Stream.of(names).anyMatch(n -> e.endsWith(n) || Paths.get(e).getFileName().toString().startsWith(n)))
        .findFirst()
        .orElseThrow(() -> new AssertionError("none of " + List.of(names) + " on the test class path: " + classPath));
  }
}
