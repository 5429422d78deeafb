package io.shardwise.processor;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.annotation.processing.Filer;
import javax.tools.FileObject;
import javax.tools.JavaFileManager;
import javax.tools.StandardLocation;

/**
 * The entity index: one small resource per entity name, {@value #DIRECTORY}‹entity name›, holding
 * the qualified name of the entity class. Every compilation that runs the processor writes one
 * entry per entity it compiled, next to the classes; a later compilation that meets an entity name
 * it does not compile itself (the entities of a {@code domain} module's jar, or the module's own
 * earlier output in an incremental or IDE build) finds the class through the index, then reads the
 * class file's annotations like any other element.
 *
 * <p>One file per name rather than one file per module: the {@link Filer} reads a named resource
 * through javac's own class path (jars and directories alike, whatever the processor path), but
 * offers no way to list every copy of one resource. Not under {@code META-INF}: javac looks into a
 * jar only through directories whose names are Java identifiers, so a resource under
 * {@code META-INF/} of a jar on the class path is invisible to the Filer. And under a keyword,
 * {@code import}: a directory whose path is a legal package name would make a package of every
 * explicit module (module-info) that carries the index, and two such modules in one application
 * would fail at start-up with "Package ... in both module a and module b"; a keyword is an
 * identifier to javac but never part of a package name. For the same reason the index of
 * hibernate-processor ({@value #HIBERNATE_DIRECTORY}‹entity name›, the same form, as 7.4 writes it)
 * is read too, for modules compiled without Shardwise. An entry is a hint: the
 * caller checks that the class is still an entity of that name, so a stale entry never resolves a
 * name wrongly.
 */
final class EntityIndex {

  static final String DIRECTORY = "shardwise/import/";
  static final String HIBERNATE_DIRECTORY = "entity/index/";

  /** Nearest first: this compilation's own output, then the class path (other modules' jars). */
  private static final List<JavaFileManager.Location> LOCATIONS =
      List.of(StandardLocation.CLASS_OUTPUT, StandardLocation.CLASS_PATH);

  private final Filer filer;
  private final Reporter reporter;

  EntityIndex(Filer filer, Reporter reporter) {
    this.filer = filer;
    this.reporter = reporter;
  }

  /** Whether a name can be an index entry: an entity name the way a query writes it. */
  static boolean indexable(String entityName) {
    if (entityName.isEmpty() || !Character.isJavaIdentifierStart(entityName.charAt(0))) {
      return false;
    }
    for (int i = 1; i < entityName.length(); i++) {
      if (!Character.isJavaIdentifierPart(entityName.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** The class names the readable indexes give for an entity name, nearest first, no repeats. */
  List<String> classesNamed(String entityName) {
    List<String> classes = new ArrayList<>(2);
    if (!indexable(entityName)) {
      return classes;
    }
    for (String directory : List.of(DIRECTORY, HIBERNATE_DIRECTORY)) {
      for (JavaFileManager.Location location : LOCATIONS) {
        String className = read(location, directory + entityName);
        if (className != null && !className.isEmpty() && !classes.contains(className)) {
          classes.add(className);
        }
      }
    }
    return classes;
  }

  /**
   * Writes one entry per entity name of this compilation: name to qualified class name.
   *
   * <p>javac's {@link Filer#createResource} compares each new file with every source file of the
   * compilation and every file created before, asking the file system each time, so a thousand
   * entries among a thousand sources cost seconds. Where the class output is a directory (a
   * {@code file:} URI, as with javac under Maven, Gradle and IDEs), the entries are therefore
   * written straight into it; elsewhere through {@code createResource}.
   */
  void write(Map<String, String> classByEntityName) throws IOException {
    for (Map.Entry<String, String> entry : classByEntityName.entrySet()) {
      if (!indexable(entry.getKey())) {
        continue;
      }
      String path = DIRECTORY + entry.getKey();
      String line = entry.getValue() + "\n";
      Path file = directFile(path);
      if (file != null) {
        Files.createDirectories(file.getParent());
        Files.writeString(file, line, StandardCharsets.UTF_8);
      } else {
        try (Writer out = filer.createResource(StandardLocation.CLASS_OUTPUT, "", path).openWriter()) {
          out.write(line);
        }
      }
    }
  }

  /**
   * The file of a class-output resource when the class output is a directory; null when it is not,
   * or when the compiler hands out no file object for a resource that does not exist yet (the
   * Eclipse compiler).
   */
  private Path directFile(String path) {
    URI target;
    try {
      target = filer.getResource(StandardLocation.CLASS_OUTPUT, "", path).toUri();
    } catch (IOException | IllegalArgumentException noFileObject) {
      return null;
    }
    return "file".equals(target.getScheme()) ? Path.of(target) : null;
  }

  /** The first line of a resource, or null when the location does not hold it. */
  private String read(JavaFileManager.Location location, String path) {
    FileObject file;
    try {
      file = filer.getResource(location, "", path);
    } catch (FileNotFoundException | NoSuchFileException | IllegalArgumentException absent) {
      // javac throws FileNotFoundException for a resource that is not on the path; other
      // compilers may not support reading this location at all (IllegalArgumentException).
      return null;
    } catch (IOException | UnsupportedOperationException e) {
      reporter.warning("could not look up " + path + " in " + location.getName() + " (" + e
          + "); entities named there are reported as unresolved.");
      return null;
    }
    // Read as bytes: the Eclipse compiler's file objects for jar entries open no reader.
    try (InputStream in = file.openInputStream()) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int end = text.indexOf('\n');
      return (end < 0 ? text : text.substring(0, end)).trim();
    } catch (FileNotFoundException | NoSuchFileException absent) {
      // An output location hands out a file object whether or not the file exists.
      return null;
    } catch (IOException | UnsupportedOperationException e) {
      reporter.warning("could not read " + file.toUri() + " (" + e
          + "); entities named there are reported as unresolved.");
      return null;
    }
  }
}
