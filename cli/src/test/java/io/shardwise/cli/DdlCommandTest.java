package io.shardwise.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardwiseDdl;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code shardwise ddl} prints, without connecting, the SQL that the runtime prints when an object is missing. */
class DdlCommandTest {

  @Test
  void printsEveryFeaturesScriptAndTheGlobalIndexTablesForTheRole() {
    StringWriter out = new StringWriter();
    CommandLine cli = ShardwiseCli.commandLine();
    cli.setOut(new PrintWriter(out));
    int exit = cli.execute("ddl", "--role", "app", "--global-index", "Customer.email=com.example.Customer");
    assertEquals(0, exit, out.toString());
    String printed = out.toString();
    for (ShardwiseDdl.Feature feature : ShardwiseDdl.Feature.values()) {
      assertTrue(printed.contains(feature.script("app")), feature + " missing from:\n" + printed);
    }
    assertTrue(printed.contains(ShardwiseDdl.globalIndexScript("shardwise.gidx_customer_email", "app")), printed);
  }

  @Test
  void aGlobalIndexWithoutAnAttributeIsRefused() {
    StringWriter err = new StringWriter();
    CommandLine cli = ShardwiseCli.commandLine();
    cli.setErr(new PrintWriter(err));
    assertEquals(2, cli.execute("ddl", "--role", "app", "--global-index", "Customer"));
    assertTrue(err.toString().contains("write Entity.attribute"), err.toString());
  }
}
