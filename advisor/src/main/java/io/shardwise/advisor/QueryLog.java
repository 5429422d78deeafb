package io.shardwise.advisor;

import io.shardwise.advisor.DatabaseStatistics.StatementCalls;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The statements of a query log, each occurrence one call: a PostgreSQL server log written with
 * {@code log_min_duration_statement = 0} (or {@code log_statement = 'all'}), or a plain file of SQL
 * statements, one a line. A file is a server log when one of its lines carries a logged statement
 * ({@code LOG:  duration: 0.042 ms  execute <unnamed>: select ...}); then only those lines count,
 * with the tab-indented lines that continue them, and the {@code parse} and {@code bind} steps of
 * the extended protocol are left out (the {@code execute} step is the call). Otherwise every
 * non-blank line that is not a {@code --} comment is one statement. Literals and parameters do not
 * matter: {@link CallWeights} matches a statement by its tables and compared columns.
 */
final class QueryLog {
  private static final Pattern LOGGED_STATEMENT = Pattern.compile(
      "\\bLOG:\\s+(?:duration: [0-9.]+ ms\\s+)?(?:statement|execute [^:]*): (.*)$");

  private QueryLog() {}

  static List<StatementCalls> read(Path file) {
    List<String> lines = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lines.add(line);
      }
    } catch (IOException e) {
      throw new AdvisorException("Cannot read the query log " + file + ": " + e.getMessage()
          + ". Pass a PostgreSQL log (log_min_duration_statement = 0) or a file of SQL statements, one a line.", e);
    }
    boolean serverLog = lines.stream().anyMatch(line -> LOGGED_STATEMENT.matcher(line).find());
    Map<String, Long> calls = new LinkedHashMap<>();
    StringBuilder statement = null;
    for (String line : lines) {
      Matcher logged = serverLog ? LOGGED_STATEMENT.matcher(line) : null;
      if (serverLog && statement != null && line.startsWith("\t")) {
        statement.append(' ').append(line.strip());
        continue;
      }
      count(calls, statement);
      statement = null;
      if (serverLog && logged.find()) {
        statement = new StringBuilder(logged.group(1).strip());
      } else if (!serverLog && !line.isBlank() && !line.strip().startsWith("--")) {
        statement = new StringBuilder(line.strip());
      }
    }
    count(calls, statement);
    if (calls.isEmpty()) {
      throw new AdvisorException("The query log " + file + " holds no statement: pass a PostgreSQL log written with"
          + " log_min_duration_statement = 0, or a file of SQL statements, one a line.");
    }
    List<StatementCalls> statements = new ArrayList<>();
    calls.forEach((sql, n) -> statements.add(new StatementCalls(sql, n)));
    return statements;
  }

  private static void count(Map<String, Long> calls, StringBuilder statement) {
    if (statement != null && !statement.isEmpty()) {
      calls.merge(statement.toString(), 1L, Long::sum);
    }
  }
}
