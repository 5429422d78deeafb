package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.bank.Account;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * Micrometer is optional: the runtime starts, routes, reads and scatters with no Micrometer class
 * on the class path, nor any of Flyway's (also optional). The test class path is loaded again
 * without their jars, and a session factory is built and used inside that class loader.
 */
@ShardedPostgres(shards = 2)
class WithoutMicrometerTest {

  @Test
  void theRuntimeStartsAndWorksWithoutMicrometer(PostgresTopology pg) throws Exception {
    List<URL> urls = new ArrayList<>();
    int dropped = 0;
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    for (String entry : classPath.split(File.pathSeparator)) {
      String jar = Path.of(entry).getFileName().toString();
      if (jar.startsWith("micrometer-") || jar.startsWith("flyway-")) {
        dropped++;
        continue;
      }
      urls.add(Path.of(entry).toUri().toURL());
    }
    assertTrue(dropped > 0, "micrometer-core is on the test class path, and left out here: " + classPath);
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    try (URLClassLoader withoutMicrometer = new URLClassLoader(urls.toArray(URL[]::new),
        ClassLoader.getPlatformClassLoader())) {
      assertThrows(ClassNotFoundException.class,
          () -> withoutMicrometer.loadClass("io.micrometer.core.instrument.MeterRegistry"));
      // Flyway is optional too: the version gate, which every start runs, reads the history table without it
      assertThrows(ClassNotFoundException.class, () -> withoutMicrometer.loadClass("org.flywaydb.core.Flyway"));
      thread.setContextClassLoader(withoutMicrometer);
      @SuppressWarnings("unchecked")
      Function<String[], String> run = (Function<String[], String>) withoutMicrometer.loadClass(Run.class.getName())
          .getDeclaredConstructor().newInstance();
      assertEquals("1 account on each shard, 2 in all; migrations need Flyway",
          run.apply(new String[] {pg.shard(0).primary().jdbcUrl(), pg.shard(1).primary().jdbcUrl()}));
    } finally {
      thread.setContextClassLoader(before);
    }
  }

  /** Runs inside the class loader without Micrometer: every class it names is loaded there. */
  public static final class Run implements Function<String[], String> {
    @Override
    public String apply(String[] primaries) {
      // DriverManager hands a caller only drivers of its own class loader; the JVM registered the
      // application loader's at its first use, so this loader registers its own copy, and removes it after.
      java.sql.Driver driver = new org.postgresql.Driver();
      try {
        java.sql.DriverManager.registerDriver(driver);
        return run(primaries);
      } catch (java.sql.SQLException e) {
        throw new IllegalStateException(e);
      } finally {
        try {
          java.sql.DriverManager.deregisterDriver(driver);
        } catch (java.sql.SQLException ignored) {
          // not registered
        }
      }
    }

    private static String run(String[] primaries) {
      SessionFactory sf = Shardwise.configure().credentials("postgres", null)
          .shard("shard0", primaries[0]).shard("shard1", primaries[1])
          .entities(Account.class).schema("create").buildSessionFactory();
      try {
        ShardedSessions shards = ShardedSessions.of(sf);
        long on0 = BankFixture.key(shards, "shard0", 1);
        long on1 = BankFixture.key(shards, "shard1", 1);
        shards.forKey(on0).inTransaction(s -> s.persist(new Account(on0, 10)));
        shards.forKey(on1).inTransaction(s -> s.persist(new Account(on1, 20)));
        long found = shards.forKey(on1).readOnly().fromSession(s -> s.find(Account.class, on1).getBalance());
        if (found != 20) {
          return "read back " + found;
        }
        List<Long> all = shards.scatter().createQuery("select a.id from Account a", Long.class).getResultList();
        // counted through JDBC: native SQL that pins no key is refused like HQL
        long onShard0 = shards.forShard("shard0").fromSession(s -> s.doReturningWork(c -> {
          try (java.sql.Statement st = c.createStatement();
              java.sql.ResultSet rs = st.executeQuery("select count(*) from account")) {
            rs.next();
            return rs.getLong(1);
          }
        }));
        String migrations;
        try {
          shards.migrations();
          migrations = "migrations built without Flyway";
        } catch (ShardingConfigurationException e) {
          boolean namesTheArtifacts = e.getMessage()
              .contains("add org.flywaydb:flyway-core and org.flywaydb:flyway-database-postgresql");
          migrations = namesTheArtifacts ? "migrations need Flyway" : e.getMessage();
        }
        return onShard0 + " account on each shard, " + all.size() + " in all; " + migrations;
      } finally {
        sf.close();
      }
    }
  }
}
