package io.shardwise.testkit.internal;

import java.nio.file.Path;

public final class DirectoryTreesForTests {
  private DirectoryTreesForTests() {}

  public static void delete(Path root) {
    DirectoryTrees.deleteQuietly(root);
  }
}
