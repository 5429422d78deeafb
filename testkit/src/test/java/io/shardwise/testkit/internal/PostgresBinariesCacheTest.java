package io.shardwise.testkit.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardwise.testkit.PostgresStartException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A binaries cache that another user could have written is never run from: a planted "complete"
 * copy whose {@code bin/postgres} is a shell script stands in for a hostile user's binary.
 */
class PostgresBinariesCacheTest {
  private static final int NOBODY = 65534;
  private static final byte[] ELF = {0x7f, 'E', 'L', 'F'};
  private static final String PLANTED = "#!/bin/sh\necho planted\n";

  @TempDir
  Path temp;
  private Path cacheRoot;
  private String key;

  @BeforeEach
  void createCacheRoot() throws IOException {
    cacheRoot = Files.createDirectory(temp.resolve("shardwise-postgres"));
    Files.setPosixFilePermissions(cacheRoot, PosixFilePermissions.fromString("rwxr-xr-x"));
    key = PostgresBinaries.bundleCacheKey();
  }

  @Test
  void aCopyWithAWritableBinaryIsUnpackedAfresh() throws IOException {
    Path planted = plantCompleteCopy(cacheRoot.resolve(key));
    Files.setPosixFilePermissions(planted.resolve("bin/postgres"), PosixFilePermissions.fromString("rwxrwxrwx"));

    PostgresBinaries binaries = PostgresBinaries.resolve(null, cacheRoot);

    assertEquals(cacheRoot.resolve(key), binaries.home());
    assertRealAndTrusted(binaries);
  }

  @Test
  void aCopyOwnedByAnotherUserIsUnpackedAfresh() throws IOException {
    assumeTrue(ServerUserTest.jvmIsRoot(), "handing files to another user needs root");
    Path planted = plantCompleteCopy(cacheRoot.resolve(key));
    chownTree(planted, NOBODY);

    PostgresBinaries binaries = PostgresBinaries.resolve(null, cacheRoot);

    assertEquals(cacheRoot.resolve(key), binaries.home());
    assertRealAndTrusted(binaries);
  }

  @Test
  void aCacheRootOwnedByAnotherUserIsLeftAloneForOneOfThisUsersOwn() throws IOException {
    assumeTrue(ServerUserTest.jvmIsRoot(), "handing files to another user needs root");
    Path planted = plantCompleteCopy(cacheRoot.resolve(key));
    chownTree(cacheRoot, NOBODY);

    PostgresBinaries binaries = PostgresBinaries.resolve(null, cacheRoot);

    assertEquals(PostgresBinaries.personalCacheRoot(cacheRoot, 0).resolve(key), binaries.home());
    assertRealAndTrusted(binaries);
    assertEquals(PLANTED, Files.readString(planted.resolve("bin/postgres")), "another user's files are not touched");
  }

  @Test
  void withNoTrustworthyRootTheStartIsRefusedWithTheFix() throws IOException {
    assumeTrue(ServerUserTest.jvmIsRoot(), "handing files to another user needs root");
    Path personal = Files.createDirectory(PostgresBinaries.personalCacheRoot(cacheRoot, 0));
    chownTree(cacheRoot, NOBODY);
    Files.setPosixFilePermissions(personal, PosixFilePermissions.fromString("rwxrwxrwx"));

    PostgresStartException e = assertThrows(PostgresStartException.class,
        () -> PostgresBinaries.resolve(null, cacheRoot));

    assertTrue(e.getMessage().contains(cacheRoot + " is owned by uid " + NOBODY), e.getMessage());
    assertTrue(e.getMessage().contains(personal + " is writable by every user"), e.getMessage());
    assertTrue(e.getMessage().contains("shardwise.testkit.postgres.home"), e.getMessage());
  }

  private static Path plantCompleteCopy(Path target) throws IOException {
    Path bin = Files.createDirectories(target.resolve("bin"));
    for (String program : new String[] {"postgres", "initdb", "pg_ctl"}) {
      Files.writeString(bin.resolve(program), PLANTED);
      Files.setPosixFilePermissions(bin.resolve(program), PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    Files.createFile(target.resolve(".complete"));
    return target;
  }

  private static void chownTree(Path root, int uid) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
      }
    }
  }

  private static void assertRealAndTrusted(PostgresBinaries binaries) throws IOException {
    Path postgres = binaries.bin("postgres");
    try (InputStream in = Files.newInputStream(postgres)) {
      assertArrayEquals(ELF, in.readNBytes(4), postgres + " is the bundle's program, not the planted script");
    }
    assertEquals(Optional.empty(), TrustedDirectories.forThisJvm().problemWithTree(binaries.home()));
  }
}
