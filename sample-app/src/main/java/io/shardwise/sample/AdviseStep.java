package io.shardwise.sample;

import io.shardwise.advisor.Advice;
import io.shardwise.advisor.ShardKeyAdvisor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The walkthrough's first step, before any annotation exists: {@code shardwise advise} on the
 * unsharded owners → pets → visits model ({@code sample-app/adopted-before}), compiled here as its
 * application compiles it, without Shardwise's processor. What it proposes is what the sharded
 * version ({@code io.shardwise.sample.adopted}) was annotated with by hand (docs/adopting.md).
 */
final class AdviseStep {
  static final String PACKAGE = "io.shardwise.sample.adopted";

  private AdviseStep() {}

  /** The unsharded model's sources: {@code adopted-before} beside the module, wherever Maven was started. */
  static Path sources() {
    for (Path candidate : List.of(Path.of("adopted-before"), Path.of("sample-app", "adopted-before"))) {
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException("sample-app/adopted-before not found from " + Path.of("").toAbsolutePath()
        + ": run the sample from the repository's root or from sample-app/");
  }

  /** Compiles the unsharded model into a temporary directory, advises on it, and removes the directory. */
  static Advice advise(Path sources) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new IllegalStateException("the advise step compiles sample-app/adopted-before: run the sample on a JDK");
    }
    Path classes = null;
    try {
      classes = Files.createTempDirectory("adopted-before-classes");
      String persistenceApi = Path.of(jakarta.persistence.Entity.class.getProtectionDomain().getCodeSource()
          .getLocation().toURI()).toString();
      List<String> arguments = new ArrayList<>(List.of("-proc:none", "-d", classes.toString(), "-classpath",
          persistenceApi));
      try (Stream<Path> files = Files.walk(sources)) {
        files.filter(f -> f.toString().endsWith(".java")).forEach(f -> arguments.add(f.toString()));
      }
      if (javac.run(null, null, null, arguments.toArray(String[]::new)) != 0) {
        throw new IllegalStateException("javac refused " + sources);
      }
      return ShardKeyAdvisor.advise(List.of(classes), List.of(PACKAGE), null, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    } finally {
      delete(classes);
    }
  }

  private static void delete(Path directory) {
    if (directory == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
