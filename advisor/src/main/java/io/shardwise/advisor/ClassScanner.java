package io.shardwise.advisor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The classes of an application's class directories and jars under the given packages, loaded
 * without initialising them (no static initialiser of the application runs). Those classes come
 * from the given class path even when a class of the same name is visible to the advisor itself
 * (the application's own build running the advisor, an older copy of the model on its class path);
 * every other class (JPA, Spring Data, the JDK) is the advisor's, so that annotations are recognised.
 * Without packages, the classes of the directories are the application's, those of jars are not.
 */
final class ClassScanner {
  private ClassScanner() {}

  static List<Class<?>> load(List<Path> classPath, List<String> packages, ClassLoader parent) {
    URL[] urls = classPath.stream().map(ClassScanner::url).toArray(URL[]::new);
    Map<Path, List<String>> namesByEntry = new LinkedHashMap<>();
    Set<String> application = new HashSet<>();
    for (Path entry : classPath) {
      List<String> names = classNames(entry);
      namesByEntry.put(entry, names);
      for (String name : names) {
        if (packages.isEmpty() ? Files.isDirectory(entry) : inPackages(name, packages)) {
          application.add(name);
        }
      }
    }
    ApplicationFirst loader = new ApplicationFirst(urls, parent, application);
    List<Class<?>> classes = new ArrayList<>();
    for (Map.Entry<Path, List<String>> entryNames : namesByEntry.entrySet()) {
      Path entry = entryNames.getKey();
      for (String name : entryNames.getValue()) {
        if (inPackages(name, packages)) {
          try {
            classes.add(Class.forName(name, false, loader));
          } catch (ClassNotFoundException | LinkageError e) {
            throw new AdvisorException("Cannot load " + name + " from " + entry + " (" + e
                + "): put every jar it needs on --classpath.");
          }
        }
      }
    }
    return classes;
  }

  /** Loads the application's classes from its class path before asking the parent; the rest parent first. */
  private static final class ApplicationFirst extends URLClassLoader {
    private final Set<String> application;

    ApplicationFirst(URL[] urls, ClassLoader parent, Set<String> application) {
      super(urls, parent);
      this.application = application;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!application.contains(name)) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> loaded = findLoadedClass(name);
        if (loaded == null) {
          loaded = findClass(name);
        }
        if (resolve) {
          resolveClass(loaded);
        }
        return loaded;
      }
    }
  }

  private static boolean inPackages(String className, List<String> packages) {
    if (packages.isEmpty()) {
      return true;
    }
    for (String pkg : packages) {
      if (className.startsWith(pkg + ".")) {
        return true;
      }
    }
    return false;
  }

  private static List<String> classNames(Path entry) {
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(entry)) {
      try (Stream<Path> files = Files.walk(entry)) {
        files.filter(f -> f.toString().endsWith(".class"))
            .forEach(f -> names.add(className(entry.relativize(f).toString().replace('\\', '/'))));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    } else if (Files.isRegularFile(entry)) {
      try (JarFile jar = new JarFile(entry.toFile())) {
        for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
          String name = entries.nextElement().getName();
          if (name.endsWith(".class")) {
            names.add(className(name));
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    } else {
      throw new AdvisorException("No class directory or jar at " + entry + ": pass the application's compiled"
          + " classes (e.g. target/classes) with --classes.");
    }
    names.removeIf(n -> n.endsWith("module-info") || n.endsWith("package-info"));
    names.sort(null);
    return names;
  }

  private static String className(String path) {
    return path.substring(0, path.length() - ".class".length()).replace('/', '.');
  }

  private static URL url(Path path) {
    try {
      return path.toUri().toURL();
    } catch (MalformedURLException e) {
      throw new AdvisorException("Not a class path entry: " + path);
    }
  }
}
