package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.annotation.processing.Processor;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * In-process javac over in-memory sources, with the diagnostics kept for assertions on tag, file
 * and line. Without explicit processors javac discovers them through META-INF/services on the
 * class path, as a build would.
 */
final class Compilation {

  private static final JavaCompiler JAVAC = ToolProvider.getSystemJavaCompiler();

  private final Map<String, String> sources = new LinkedHashMap<>();
  private final List<Diagnostic<? extends JavaFileObject>> diagnostics = new ArrayList<>();
  private final List<Path> classPath = new ArrayList<>();
  private final List<String> options = new ArrayList<>();
  private Path sourcePath;
  private JavaCompiler compiler = JAVAC;
  private boolean writeClasses;
  private boolean success;
  private Path output;

  /** Adds a source by its path, e.g. {@code app/Merchant.java}. */
  Compilation source(String path, String text) {
    sources.put(path, text);
    return this;
  }

  /** Puts a jar or class directory on the class path, in front of this test's own. */
  Compilation classPath(Path entry) {
    classPath.add(entry);
    return this;
  }

  /** Lets javac find sources it was not given (the way IDEs and some builds pass a module). */
  Compilation sourcePath(Path directory) {
    sourcePath = directory;
    return this;
  }

  /** A javac option, such as {@code -Ashardwise.unresolvedEntity=warning}. */
  Compilation option(String option) {
    options.add(option);
    return this;
  }

  /** Compiles with the Eclipse compiler (ECJ, the one Eclipse IDE runs) instead of javac. */
  Compilation eclipse() {
    compiler = new org.eclipse.jdt.internal.compiler.tool.EclipseCompiler();
    return this;
  }

  /** Compiles to class files too, not only through the processors ({@code -proc:only}). */
  Compilation writingClasses() {
    writeClasses = true;
    return this;
  }

  Compilation compileWith(Processor... processors) {
    return run(List.of(processors), true);
  }

  /** Runs the processors javac finds on the class path, as Maven does without a processor path. */
  Compilation compileDiscovering() {
    return run(null, false);
  }

  private Compilation run(List<Processor> processors, boolean explicit) {
    DiagnosticCollector<JavaFileObject> collector = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
        compiler.getStandardFileManager(collector, Locale.ROOT, null)) {
      Path out = Files.createTempDirectory("shardwise-processor-test");
      output = out;
      List<JavaFileObject> units = new ArrayList<>();
      if (compiler == JAVAC) {
        sources.forEach((path, text) -> units.add(new Source(path, text)));
      } else {
        // The Eclipse compiler reads sources from files only.
        Path root = onDisk(sources);
        for (String path : sources.keySet()) {
          files.getJavaFileObjects(root.resolve(path).toFile()).forEach(units::add);
        }
      }
      List<String> path = new ArrayList<>();
      classPath.forEach(entry -> path.add(entry.toString()));
      path.add(System.getProperty("java.class.path"));
      List<String> arguments = new ArrayList<>(List.of("-d", out.toString(), "-s", out.toString(),
          "-classpath", String.join(File.pathSeparator, path)));
      arguments.addAll(compiler == JAVAC ? List.of("-Xlint:-processing") : List.of("-17"));
      if (!writeClasses) {
        arguments.add("-proc:only");
      }
      if (sourcePath != null) {
        arguments.addAll(List.of("-sourcepath", sourcePath.toString(), "-implicit:none"));
      }
      arguments.addAll(options);
      JavaCompiler.CompilationTask task =
          compiler.getTask(null, files, collector, arguments, null, units);
      if (explicit) {
        task.setProcessors(processors);
      }
      success = task.call();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    diagnostics.addAll(collector.getDiagnostics());
    return this;
  }

  /** A file the compilation wrote to its class output, e.g. a generated resource. */
  Path output(String relative) {
    return output.resolve(relative);
  }

  /** The class output directory (classes, generated resources). */
  Path output() {
    return output;
  }

  /** The class output packed into a jar, as a build packs a module that others depend on. */
  Path outputAsJar() {
    try {
      Path jar = Files.createTempFile("shardwise-fixture", ".jar");
      try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
          Stream<Path> files = Files.walk(output)) {
        for (Path file : (Iterable<Path>) files::iterator) {
          if (Files.isRegularFile(file)) {
            String name = output.relativize(file).toString().replace(File.separatorChar, '/');
            out.putNextEntry(new JarEntry(name));
            Files.copy(file, out);
            out.closeEntry();
          }
        }
      }
      return jar;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes sources to a fresh directory, for {@link #sourcePath}. */
  static Path onDisk(Map<String, String> sources) {
    try {
      Path root = Files.createTempDirectory("shardwise-sources");
      for (Map.Entry<String, String> source : sources.entrySet()) {
        Path file = root.resolve(source.getKey());
        Files.createDirectories(file.getParent());
        Files.writeString(file, source.getValue());
      }
      return root;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  boolean succeeded() {
    return success;
  }

  List<Diagnostic<? extends JavaFileObject>> warnings(Tag tag) {
    return diagnostics.stream()
        .filter(d -> d.getKind() == Diagnostic.Kind.WARNING)
        .filter(d -> d.getMessage(Locale.ROOT).startsWith(tag.bracketed()))
        .collect(Collectors.toList());
  }

  List<Diagnostic<? extends JavaFileObject>> errors() {
    return diagnostics.stream()
        .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
        .collect(Collectors.toList());
  }

  List<Diagnostic<? extends JavaFileObject>> errors(Tag tag) {
    return errors().stream()
        .filter(d -> d.getMessage(Locale.ROOT).startsWith(tag.bracketed()))
        .collect(Collectors.toList());
  }

  void assertClean() {
    assertTrue(success && errors().isEmpty(), "expected a clean compilation, got:\n" + dump());
  }

  /**
   * Asserts an error with this tag in this file on the (first) line containing the text, and
   * returns its message for further checks.
   */
  String assertError(Tag tag, String path, String lineContaining) {
    long line = lineOf(path, lineContaining);
    for (Diagnostic<? extends JavaFileObject> d : errors(tag)) {
      if (d.getSource() != null && d.getSource().getName().endsWith(path)
          && d.getLineNumber() == line) {
        assertTrue(!success, "an error was reported but the compilation succeeded");
        return d.getMessage(Locale.ROOT);
      }
    }
    return fail("expected " + tag.bracketed() + " in " + path + " on line " + line + " ("
        + lineContaining.strip() + "), got:\n" + dump());
  }

  /** As {@link #assertError}, for a warning (the compilation may still succeed). */
  String assertWarning(Tag tag, String path, String lineContaining) {
    long line = lineOf(path, lineContaining);
    for (Diagnostic<? extends JavaFileObject> d : warnings(tag)) {
      if (d.getSource() != null && d.getSource().getName().endsWith(path)
          && d.getLineNumber() == line) {
        return d.getMessage(Locale.ROOT);
      }
    }
    return fail("expected a warning " + tag.bracketed() + " in " + path + " on line " + line
        + " (" + lineContaining.strip() + "), got:\n" + dump());
  }

  void assertErrorCount(int expected) {
    assertEquals(expected, errors().size(), "errors:\n" + dump());
  }

  private long lineOf(String path, String text) {
    String source = sources.get(path);
    if (source == null) {
      return fail("no source " + path);
    }
    String[] lines = source.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].contains(text)) {
        return i + 1;
      }
    }
    return fail("no line containing '" + text + "' in " + path);
  }

  String dump() {
    StringBuilder text = new StringBuilder();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics) {
      text.append(d.getKind()).append(' ')
          .append(d.getSource() == null ? "-" : Path.of(d.getSource().getName()).getFileName())
          .append(':').append(d.getLineNumber()).append(' ')
          .append(d.getMessage(Locale.ROOT)).append('\n');
    }
    return text.toString();
  }

  private static final class Source extends SimpleJavaFileObject {
    private final String text;

    Source(String path, String text) {
      super(URI.create("string:///" + path), Kind.SOURCE);
      this.text = text;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return text;
    }
  }
}
