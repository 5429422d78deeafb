package io.shardwise.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command of the tree, a new one included, answers {@code --help} with its usage and at
 * least one example, and {@code --version} with the build's version: a command added without them
 * fails here.
 */
class EveryCommandHelpTest {
  @Test
  void everyCommandHasHelpWithAnExampleAndTheVersion() {
    List<CommandLine> commands = new ArrayList<>();
    collect(ShardwiseCli.commandLine(), commands);
    assertTrue(commands.size() >= 15, "the root, advise, reshard and its 10 steps, ddl, migrate, completion: "
        + commands.size());
    for (CommandLine command : commands) {
      String name = command.getCommandSpec().qualifiedName();
      String usage = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
      assertTrue(usage.startsWith("Usage: " + name + " "), usage);
      assertTrue(usage.contains("\nExample:\n  shardwise ") || usage.contains("\nExamples:\n  "), name + ":\n" + usage);
      assertTrue(command.getCommandSpec().mixinStandardHelpOptions(), name + " has --help and --version");
      assertEquals("shardwise ", command.getCommandSpec().version()[0].substring(0, "shardwise ".length()), name);
    }
  }

  private static void collect(CommandLine command, List<CommandLine> all) {
    all.add(command);
    command.getSubcommands().values().stream().distinct().forEach(sub -> collect(sub, all));
  }
}
