package io.shardwise.testkit.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which cached trees the testkit may run programs from. */
class TrustedDirectoriesTest {
  private static final int NOBODY = 65534;

  @TempDir
  Path temp;
  private Path tree;
  private TrustedDirectories trust;

  @BeforeEach
  void plantAWellFormedTree() throws IOException {
    trust = TrustedDirectories.forThisJvm();
    tree = Files.createDirectories(temp.resolve("cache").resolve("bundle"));
    chmod(temp.resolve("cache"), "rwxr-xr-x");
    chmod(tree, "rwxr-xr-x");
    Path bin = Files.createDirectories(tree.resolve("bin"));
    chmod(bin, "rwxr-xr-x");
    chmod(Files.writeString(bin.resolve("postgres"), "#!/bin/sh\n"), "rwxr-xr-x");
    Files.createSymbolicLink(tree.resolve("bin").resolve("postmaster"), Path.of("postgres"));
  }

  @Test
  void aTreeOnlyThisUserCouldWriteIsTrusted() {
    assertEquals(Optional.empty(), trust.problemWithTree(tree));
    assertEquals(Optional.empty(), trust.problemWithDirectory(tree.getParent()));
  }

  @Test
  void aGroupWritableFileDeepInsideIsNotTrusted() throws IOException {
    Path postgres = tree.resolve("bin").resolve("postgres");
    chmod(postgres, "rwxrwxr-x");
    String problem = trust.problemWithTree(tree).orElseThrow();
    assertTrue(problem.contains(postgres.toString()) && problem.contains("its group") && problem.contains("0775"),
        problem);
  }

  @Test
  void aWorldWritableDirectoryIsNotTrusted() throws IOException {
    chmod(tree.resolve("bin"), "rwxr-xrwx");
    String problem = trust.problemWithTree(tree).orElseThrow();
    assertTrue(problem.contains("every user") && problem.contains("0757"), problem);
  }

  @Test
  void aFileOwnedByAnotherUserIsNotTrusted() throws IOException {
    assumeTrue(ServerUserTest.jvmIsRoot(), "handing a file to another user needs root");
    Path postgres = tree.resolve("bin").resolve("postgres");
    Files.setAttribute(postgres, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
    String problem = trust.problemWithTree(tree).orElseThrow();
    assertTrue(problem.contains(postgres.toString()) && problem.contains("uid " + NOBODY), problem);
  }

  @Test
  void aRootOwnedByAnotherUserIsNotTrustedButIsByThatUser() throws IOException {
    assumeTrue(ServerUserTest.jvmIsRoot(), "handing a directory to another user needs root");
    Path root = tree.getParent();
    Files.setAttribute(root, "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
    String problem = trust.problemWithDirectory(root).orElseThrow();
    assertTrue(problem.contains("uid " + NOBODY), problem);
    assertEquals(Optional.empty(), new TrustedDirectories(NOBODY).problemWithDirectory(root),
        "a JVM running as that user trusts its own directory");
  }

  @Test
  void aSymbolicLinkIsNotTrustedAsADirectory() throws IOException {
    Path link = Files.createSymbolicLink(temp.resolve("link"), tree);
    String problem = trust.problemWithDirectory(link).orElseThrow();
    assertTrue(problem.contains("symbolic link"), problem);
  }

  @Test
  void aParentThatOthersCanWriteMustBeSticky() throws IOException, InterruptedException {
    Path parent = tree.getParent();
    chmod(parent, "rwxrwxrwx");
    String problem = trust.problemWithDirectory(tree).orElseThrow();
    assertTrue(problem.contains(parent.toString()) && problem.contains("not sticky"), problem);

    Process chmod = new ProcessBuilder("chmod", "1777", parent.toString()).inheritIO().start();
    assertEquals(0, chmod.waitFor());
    assertEquals(Optional.empty(), trust.problemWithDirectory(tree), "a sticky parent like /tmp is fine");
  }

  private static Path chmod(Path p, String perms) throws IOException {
    return Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(perms));
  }
}
