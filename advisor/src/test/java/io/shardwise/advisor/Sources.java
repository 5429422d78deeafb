package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Test helpers: javac on a source tree (without annotation processors), a placement by entity name. */
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
}
