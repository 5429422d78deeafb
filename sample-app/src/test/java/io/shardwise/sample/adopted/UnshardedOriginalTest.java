package io.shardwise.sample.adopted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The "before" of the adopted example is a working application, not a sketch: its sources in
 * {@code sample-app/adopted-before} compile (without the Shardwise processor, which would refuse
 * them) and run on one database with plain Hibernate, identity ids and all.
 */
@ShardedPostgres(shards = 1)
class UnshardedOriginalTest {

  @Test
  void theUnshardedOriginalCompilesAndRunsOnOneDatabase(PostgresTopology pg) throws Exception {
    Path out = Files.createTempDirectory("adopted-before");
    List<String> sources = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("adopted-before"))) {
      files.filter(f -> f.toString().endsWith(".java")).forEach(f -> sources.add(f.toString()));
    }
    assertEquals(4, sources.size(), "the four unsharded entities: " + sources);
    sources.add(Path.of("src/test/resources/adopted-before-run/UnshardedRun.java").toString());
    List<URL> classPath = new ArrayList<>();
    List<String> javacPath = new ArrayList<>();
    for (String entry : testClassPath()) {
      Path dir = Path.of(entry).toAbsolutePath();
      if (!dir.equals(Path.of("target/classes").toAbsolutePath())  // holds the sharded Owner, Pet, ...
          && !dir.equals(Path.of("target/test-classes").toAbsolutePath())) {
        classPath.add(new File(entry).toURI().toURL());
        javacPath.add(entry);
      }
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    List<String> args = new ArrayList<>(List.of("-proc:none", "-d", out.toString(), "-classpath",
        String.join(File.pathSeparator, javacPath)));
    args.addAll(sources);
    assertEquals(0, javac.run(null, null, null, args.toArray(String[]::new)), "the unsharded model compiles");
    classPath.add(0, out.toUri().toURL());

    try (URLClassLoader isolated = new URLClassLoader(classPath.toArray(URL[]::new),
        ClassLoader.getPlatformClassLoader())) {
      @SuppressWarnings("unchecked")
      Function<String, String> run = (Function<String, String>) isolated
          .loadClass("io.shardwise.sample.adopted.UnshardedRun").getConstructor().newInstance();
      String url = pg.shard(0).primary().jdbcUrl();
      assertEquals("2 Davis", run.apply(url));
    }
    try (Connection c = pg.shard(0).primary().dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT min(id), max(id), count(*) FROM owners")) {
      assertTrue(rs.next());
      assertEquals(List.of(1L, 3L, 3L), List.of(rs.getLong(1), rs.getLong(2), rs.getLong(3)),
          "identity ids, numbered by the one database");
    }
  }

  private static List<String> testClassPath() throws IOException {
    String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return List.of(path.split(File.pathSeparator));
  }
}
