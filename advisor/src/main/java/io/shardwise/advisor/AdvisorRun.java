package io.shardwise.advisor;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * One run of the advisor as the command lines ask for it ({@code shardwise advise} and
 * {@link AdvisorMain}): read, advise, print the report, write the JSON and the patch when asked.
 *
 * @param classPath the application's class directories and jars (its dependencies too, if its
 *     entities need them to load); an entry may itself be a class path, its entries separated by
 *     {@link File#pathSeparator}, as {@code mvn dependency:build-classpath} writes it
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
    List<Path> entries = new ArrayList<>();
    for (Path entry : classPath) {
      for (String part : entry.toString().split(Pattern.quote(File.pathSeparator))) {
        if (!part.isEmpty()) {
          entries.add(Path.of(part));
        }
      }
    }
    Advice advice = ShardKeyAdvisor.advise(entries, packages, jdbcUrl, login, queryLog);
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
