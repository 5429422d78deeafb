package io.shardwise.testkit.internal;

import io.shardwise.testkit.PostgresStartException;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decides whether files that some earlier process left in a shared place (the binaries cache under
 * the system temp directory) may be run. Only trees that no other user could have written are
 * trusted: every entry is owned by root or by the JVM's user and none is writable by group or
 * others; the directory holding them is, in addition, not a symbolic link, and its parent does not
 * let others rename it away (not writable by them, or sticky like {@code /tmp}).
 */
final class TrustedDirectories {
  private static final int GROUP_OR_OTHERS_WRITE = 0022;
  private static final int STICKY = 01000;
  private static final int ROOT_UID = 0;

  private final int jvmUid;
  private final Set<Integer> trustedOwners;

  TrustedDirectories(int jvmUid) {
    this.jvmUid = jvmUid;
    this.trustedOwners = jvmUid == ROOT_UID ? Set.of(ROOT_UID) : Set.of(ROOT_UID, jvmUid);
  }

  static TrustedDirectories forThisJvm() {
    int uid;
    try {
      uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      throw new PostgresStartException("Could not tell which user this JVM runs as (reading the owner of"
          + " /proc/self failed: " + e + "); the testkit needs it to decide which cached binaries it may run."
          + " Set -Dshardwise.testkit.postgres.home to an installed PostgreSQL instead.", e);
    }
    return new TrustedDirectories(uid);
  }

  int jvmUid() {
    return jvmUid;
  }

  /** Why {@code dir} may not hold programs the testkit runs, or empty when it may. */
  Optional<String> problemWithDirectory(Path dir) {
    try {
      if (Files.isSymbolicLink(dir)) {
        return Optional.of(dir + " is a symbolic link");
      }
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.of(dir + " is not a directory");
      }
      Optional<String> own = problemWithEntry(dir);
      if (own.isPresent()) {
        return own;
      }
      Path parent = dir.toAbsolutePath().getParent();
      if (parent == null) {
        return Optional.empty();
      }
      int parentOwner = owner(parent);
      if (!trustedOwners.contains(parentOwner)) {
        return Optional.of("its parent " + parent + " is owned by uid " + parentOwner + ", who could replace it"
            + " (trusted: root or this JVM's uid " + jvmUid + ")");
      }
      int parentMode = mode(parent);
      if ((parentMode & GROUP_OR_OTHERS_WRITE) != 0 && (parentMode & STICKY) == 0) {
        return Optional.of("its parent " + parent + " (mode " + octal(parentMode)
            + ") lets other users rename or replace it: it is writable by them and not sticky");
      }
      return Optional.empty();
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return Optional.of("the owner and mode of " + dir + " could not be read (" + e + ")");
    }
  }

  /**
   * Why the tree under {@code root} (not following symbolic links) may not be run, or empty when
   * every entry in it is owned by a trusted user and, links aside, writable by nobody else.
   */
  Optional<String> problemWithTree(Path root) {
    Optional<String> top = problemWithDirectory(root);
    if (top.isPresent()) {
      return top;
    }
    String[] found = new String[1];
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
          return check(dir);
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          return check(file);
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException exc) {
          found[0] = file + " could not be read (" + exc + ")";
          return FileVisitResult.TERMINATE;
        }

        private FileVisitResult check(Path entry) throws IOException {
          Optional<String> problem = problemWithEntry(entry);
          if (problem.isPresent()) {
            found[0] = problem.get();
            return FileVisitResult.TERMINATE;
          }
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return Optional.of("the tree under " + root + " could not be read (" + e + ")");
    }
    return Optional.ofNullable(found[0]);
  }

  private Optional<String> problemWithEntry(Path entry) throws IOException {
    Map<String, Object> attributes = Files.readAttributes(entry, "unix:uid,mode,isSymbolicLink",
        LinkOption.NOFOLLOW_LINKS);
    int owner = (Integer) attributes.get("uid");
    if (!trustedOwners.contains(owner)) {
      return Optional.of(entry + " is owned by uid " + owner + " (trusted: root or this JVM's uid " + jvmUid + ")");
    }
    if (!(Boolean) attributes.get("isSymbolicLink")) {
      int mode = (Integer) attributes.get("mode");
      if ((mode & GROUP_OR_OTHERS_WRITE) != 0) {
        return Optional.of(entry + " is writable by " + ((mode & 0002) != 0 ? "every user" : "its group")
            + " (mode " + octal(mode) + ")");
      }
    }
    return Optional.empty();
  }

  private static int owner(Path p) throws IOException {
    return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }

  private static int mode(Path p) throws IOException {
    return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
  }

  private static String octal(int mode) {
    return String.format("%04o", mode & 07777);
  }
}
