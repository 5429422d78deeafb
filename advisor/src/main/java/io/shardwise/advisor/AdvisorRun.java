package io.shardwise.advisor;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * One run of the advisor as the command lines ask for it ({@code shardwise advise} and
 * {@link AdvisorMain}): read, advise, print the report, write the JSON and the patch when asked.
 *
 * @param classPath the application's class directories and jars (its dependencies too, if its
 *     entities need them to load)
 * @param packages the entity and repository packages; empty for every class
 * @param jdbcUrl the existing database, read-only; null for shape only
 * @param json where to write the JSON, or null; {@code -} for standard output instead of the report
 * @param patch where to write the annotated listing, or null
 * @param queryLog a PostgreSQL log or a file of SQL statements whose occurrences weigh the queries,
 *     or null
 */
public record AdvisorRun(List<Path> classPath, List<String> packages, String jdbcUrl, String user,
    String password, Path json, Path patch, Path queryLog) {

  public Advice run(PrintWriter out) {
    Properties login = new Properties();
    if (user != null) {
      login.setProperty("user", user);
    }
    if (password != null) {
      login.setProperty("password", password);
    }
    Advice advice = ShardKeyAdvisor.advise(classPath, packages, jdbcUrl, login, queryLog);
    boolean jsonToStdout = json != null && json.toString().equals("-");
    out.print(jsonToStdout ? advice.json() : advice.text());
    try {
      if (json != null && !jsonToStdout) {
        Files.writeString(json, advice.json());
        out.println("JSON: " + json);
      }
      if (patch != null) {
        Files.writeString(patch, advice.patch());
        if (!jsonToStdout) {
          out.println("Annotations: " + patch);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.flush();
    return advice;
  }
}
