package io.shardwise.advisor;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The advisor without the {@code shardwise} command line, for {@code java -cp} or
 * {@code mvn exec:java}:
 *
 * <pre>
 * java -cp shardwise-advisor.jar:... io.shardwise.advisor.AdvisorMain \
 *     --classes target/classes --package com.example.domain \
 *     [--jdbc-url jdbc:postgresql://host/db --user u --password p] [--query-log postgresql.log]
 *     [--json advice.json] [--patch advice.txt]
 * </pre>
 */
public final class AdvisorMain {
  private AdvisorMain() {}

  public static void main(String[] args) {
    try {
      parse(args).run(new PrintWriter(System.out, true));
    } catch (AdvisorException e) {
      System.err.println("shardwise advise: " + e.getMessage());
      System.exit(2);
    }
  }

  static AdvisorRun parse(String[] args) {
    List<Path> classes = new ArrayList<>();
    List<String> packages = new ArrayList<>();
    String url = null;
    String user = System.getenv("SHARDWISE_USER");
    String password = System.getenv("SHARDWISE_PASSWORD");
    Path json = null;
    Path patch = null;
    Path queryLog = null;
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      if (i + 1 >= args.length) {
        throw new AdvisorException(option + " needs a value");
      }
      String value = args[++i];
      switch (option) {
        case "--classes" -> {
          for (String entry : value.split(",")) {
            classes.add(Path.of(entry));
          }
        }
        case "--package" -> packages.add(value);
        case "--jdbc-url" -> url = value;
        case "--user" -> user = value;
        case "--password" -> password = value;
        case "--json" -> json = Path.of(value);
        case "--patch" -> patch = Path.of(value);
        case "--query-log" -> queryLog = Path.of(value);
        default -> throw new AdvisorException("Unknown option " + option + ": use --classes, --package, --jdbc-url,"
            + " --user, --password, --query-log, --json, --patch");
      }
    }
    if (classes.isEmpty()) {
      throw new AdvisorException("Name the compiled classes: --classes target/classes (repeat for jars)");
    }
    return new AdvisorRun(classes, packages, url, user, password, json, patch, queryLog);
  }
}
