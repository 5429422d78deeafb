package io.shardwise.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `shardwise advise` on the sample app's unsharded model: the report, the JSON and the patch files, the refusal. */
class AdviseCommandTest {
  @TempDir
  Path work;

  @Test
  void advisesOnTheUnshardedSampleModelAndWritesJsonAndPatch() throws Exception {
    Path classes = compileAdoptedBefore(work.resolve("classes"));

    Path json = work.resolve("advice.json");
    Path patch = work.resolve("advice.txt");
    ReshardCommandTest.Run run = ReshardCommandTest.shardwise("advise", "--classes", classes.toString(),
        "--package", "io.shardwise.sample.adopted", "--json", json.toString(), "--patch", patch.toString());
    assertEquals(0, run.exit(), run.err());
    assertTrue(run.out().contains("  1. Owner "), run.out());
    assertTrue(run.out().contains("== Root Owner: shard key Owner.id =="), run.out());
    assertTrue(run.out().contains("  PetType              reference table"), run.out());
    assertTrue(Files.readString(json).contains("\"recommended\": \"Owner\""));
    assertTrue(Files.readString(patch).contains("@CoLocated(with = Owner.class, via = \"pet.owner\")"));
  }

  /** The sample app's unsharded model ({@code sample-app/adopted-before}), compiled as the application compiles it. */
  static Path compileAdoptedBefore(Path classes) throws Exception {
    List<String> javac = new ArrayList<>(List.of("-proc:none", "-d", classes.toString(), "-classpath",
        System.getProperty("java.class.path")));
    try (Stream<Path> files = Files.walk(Path.of("../sample-app/adopted-before"))) {
      files.filter(f -> f.toString().endsWith(".java")).forEach(f -> javac.add(f.toString()));
    }
    assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, javac.toArray(String[]::new)));
    return classes;
  }

  @Test
  void aDirectoryWithoutEntitiesIsRefusedWithWhatToPass() {
    ReshardCommandTest.Run run = ReshardCommandTest.shardwise("advise", "--classes", work.toString());
    assertEquals(2, run.exit(), run.out());
    assertTrue(run.err().startsWith("shardwise: No @Entity class under the class path in [" + work + "]: pass the"
        + " compiled classes"), run.err());
  }
}
