package io.shardwise.sample.adopted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
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
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * The "before" of the adopted example is a working application, not a sketch: its sources in
 * {@code sample-app/adopted-before} compile (without the Shardwise processor, which would refuse
 * them) and run on one database with plain Hibernate, identity ids and all. Then that database
 * goes through docs/adopting.md (bigint ids, the visits' key column) and becomes the only shard of
 * the sharded model: existing rows keep their ids, new ones get Snowflake ids, the search sees both.
 */
@ShardedPostgres(shards = 1)
class UnshardedOriginalTest {

  @Test
  void theUnshardedOriginalRunsOnOneDatabaseWhichThenBecomesTheOnlyShardKeepingItsRows(PostgresTopology pg) throws Exception {
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

    // docs/adopting.md, steps 3, 4 and 7: bigint ids, the visits' key column, that database as the only shard
    try (Connection c = pg.shard(0).primary().dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("ALTER TABLE owners ALTER COLUMN id DROP IDENTITY IF EXISTS");
      s.execute("ALTER TABLE owners ALTER COLUMN id TYPE bigint");
      s.execute("ALTER TABLE pets ALTER COLUMN owner_id TYPE bigint");
      s.execute("ALTER TABLE pets ALTER COLUMN id DROP IDENTITY IF EXISTS, ALTER COLUMN id TYPE bigint");
      s.execute("ALTER TABLE visits ALTER COLUMN pet_id TYPE bigint");
      s.execute("ALTER TABLE visits ALTER COLUMN id DROP IDENTITY IF EXISTS, ALTER COLUMN id TYPE bigint");
      s.execute("ALTER TABLE visits ADD COLUMN owner_id bigint");
      s.execute("UPDATE visits v SET owner_id = p.owner_id FROM pets p WHERE p.id = v.pet_id AND v.owner_id IS NULL");
      s.execute("ALTER TABLE visits ALTER COLUMN owner_id SET NOT NULL");
    }
    SessionFactory sf = Shardwise.configure().credentials("postgres", null)
        .property("shardwise.ids.default", "snowflake").property("shardwise.snowflake.worker_id", "22")
        .entities(Owner.class, Pet.class, Visit.class, PetType.class)
        .shard("s0", pg.shard(0).primary().jdbcUrl()).buildSessionFactory();
    try {
      ShardedSessions shards = ShardedSessions.of(sf);
      Long newPet = shards.forKey(1L).fromTransaction(session -> {
        Owner existing = session.find(Owner.class, 1L);
        assertEquals("Davis", existing.getLastName(), "an existing owner keeps its id");
        Pet pet = existing.addPet("Max", session.find(PetType.class, 1));
        pet.addVisit(LocalDate.of(2026, 4, 1), "check-up");
        session.persist(pet);
        return pet.getId();
      });
      Owner fresh = shards.forNewRoot(Owner.class).fromTransaction(session -> {
        Owner o = new Owner("Betty", "Davis", "Madison");
        session.persist(o);
        return o;
      });
      assertTrue(fresh.getId() > 1L << 22, "a new owner gets a Snowflake id, far above the old ones: " + fresh.getId());
      List<Long> davises = new ArrayList<>();
      shards.scatter().createNamedQuery("Owner.byLastName", Owner.class).setParameter("lastName", "Davis")
          .getResultList().forEach(o -> davises.add(o.getId()));
      davises.sort(null);
      assertEquals(List.of(1L, 3L, fresh.getId()), davises, "old and new owners found together");
      try (Connection c = pg.shard(0).primary().dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT p.owner_id, v.owner_id FROM pets p JOIN visits v ON v.pet_id = p.id"
              + " WHERE p.id = " + newPet)) {
        assertTrue(rs.next(), "the new pet's visit is stored");
        assertEquals(List.of(1L, 1L), List.of(rs.getLong(1), rs.getLong(2)), "keys filled from the existing owner");
      }
    } finally {
      sf.close();
    }
  }

  private static List<String> testClassPath() throws IOException {
    String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return List.of(path.split(File.pathSeparator));
  }
}
