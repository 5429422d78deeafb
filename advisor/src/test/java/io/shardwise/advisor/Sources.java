package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Test helpers: javac on a source tree (without annotation processors), a placement and a query's
 * weight by name, SQL on a test database.
 */
final class Sources {
  private Sources() {}

  static void compile(Path sourceRoot, Path out) throws IOException {
    List<String> arguments = new ArrayList<>(List.of("-proc:none", "-d", out.toString(), "-classpath",
        System.getProperty("java.class.path")));
    try (Stream<Path> files = Files.walk(sourceRoot)) {
      files.filter(f -> f.toString().endsWith(".java")).forEach(f -> arguments.add(f.toString()));
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int exit = javac.run(null, null, null, arguments.toArray(String[]::new));
    assertTrue(exit == 0, "javac failed on " + sourceRoot + File.separator);
  }

  static Placement placement(Proposal proposal, String entityName) {
    return proposal.placements.values().stream().filter(p -> p.entity().name.equals(entityName)).findFirst()
        .orElseThrow(() -> new AssertionError("no placement of " + entityName));
  }

  static double weight(Proposal proposal, String query) {
    return proposal.verdicts.stream().filter(v -> v.query().name().equals(query)).findFirst().orElseThrow().weight();
  }

  /** Rows inserted, updated and deleted in the database so far: what "the advisor wrote nothing" compares. */
  static long writes(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT sum(n_tup_ins + n_tup_upd + n_tup_del) FROM pg_stat_user_tables")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static void sql(String url, String... statements) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement st = c.createStatement()) {
      for (String statement : statements) {
        st.execute(statement);
      }
    }
  }
}
