package io.shardwise.processor;

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
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A real Maven build of a small application (src/test/resources/fixture-project) fails on its
 * query without a shard key, with the processor's message on the query's line. The build runs
 * offline and installs nothing: the processor path and the application's two dependencies are
 * paths taken from this test's own class path, so it checks the processor exactly as this build
 * just compiled it. Surefire passes Maven's home and local repository (for the compiler plugin).
 */
class MavenBuildTest {

  @Test
  void mvnCompileFailsOnAQueryWithoutTheShardKey() throws Exception {
    Path project = copyFixture();
    List<String> classPath = Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
    String processorPath = classPath.stream()
        .filter(entry -> !entry.endsWith("test-classes"))
        .filter(entry -> Stream.of("junit", "opentest4j", "apiguardian", "hibernate-processor")
            .noneMatch(entry::contains))
        .collect(Collectors.joining(File.pathSeparator));

    List<String> command = new ArrayList<>(List.of(mvn(), "-B", "-o", "compile",
        "-Dmaven.repo.local=" + required("maven.repo.local"),
        "-Dfixture.processorpath=" + processorPath,
        "-Dfixture.annotations="
            + asJar(entry(classPath, "annotations/target/classes", "shardwise-annotations-"), "annotations"),
        "-Dfixture.persistence=" + entry(classPath, "jakarta.persistence-api-")));
    Path log = project.resolve("build.log");
    Process build = new ProcessBuilder(command).directory(project.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    int exit = build.waitFor();
    String output = Files.readString(log, StandardCharsets.UTF_8);

    assertNotEquals(0, exit, output);
    assertTrue(output.contains("COMPILATION ERROR"), output);
    String file = project.resolve("src/main/java/shop/PurchaseOrder.java").toString();
    assertTrue(output.contains(file + ":[12,"), "the error is on the @NamedQuery's line:\n" + output);
    assertTrue(output.contains("[QueryWithoutShardKey] Query \"from PurchaseOrder o where o.customer = :c\" uses"
        + " sharded entity PurchaseOrder o without pinning its shard key merchantId"), output);
    assertTrue(output.contains("Fix: add \"o.merchantId = :merchantId\" to the WHERE clause, or mark the query"
        + " @ScatterGather to run it on every shard."), output);
    assertTrue(!output.contains("PurchaseOrder.java:[11,"), "the pinned named query passes:\n" + output);
  }

  private static Path copyFixture() throws IOException, URISyntaxException {
    Path source = Paths.get(MavenBuildTest.class.getResource("/fixture-project/pom.xml").toURI()).getParent();
    Path target = Paths.get("target", "fixture-project-run").toAbsolutePath();
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
