package io.shardwise.testkit.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardwise.testkit.PostgresStartException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** Which account runs PostgreSQL for a root JVM, decided against a made-up list of accounts. */
class ServerUserTest {

  /** A system's accounts, recording which names were looked up. */
  private static final class Accounts implements Predicate<String> {
    private final Set<String> existing;
    private final List<String> asked = new ArrayList<>();

    Accounts(String... existing) {
      this.existing = Set.of(existing);
    }

    @Override
    public boolean test(String name) {
      asked.add(name);
      return existing.contains(name);
    }
  }

  @Test
  void aConfiguredAccountWinsOverPostgres() {
    Accounts accounts = new Accounts("postgres", "nobody", "pgtest");
    assertEquals("pgtest", ServerUser.chooseAccount("pgtest", accounts));
    assertEquals(List.of("pgtest"), accounts.asked, "no other account is considered once one is configured");
  }

  @Test
  void aConfiguredAccountThatDoesNotExistIsAnErrorEvenWhenFallbacksExist() {
    PostgresStartException e = assertThrows(PostgresStartException.class,
        () -> ServerUser.chooseAccount("pgtest", new Accounts("postgres", "nobody")));
    assertTrue(e.getMessage().contains("'pgtest'"), e.getMessage());
    assertTrue(e.getMessage().contains("useradd --system --user-group pgtest"), e.getMessage());
    assertTrue(e.getMessage().contains("shardwise.testkit.osUser"), e.getMessage());
  }

  @Test
  void postgresIsUsedWhereItExists() {
    assertEquals("postgres", ServerUser.chooseAccount(null, new Accounts("postgres", "nobody")));
    assertEquals("postgres", ServerUser.chooseAccount("  ", new Accounts("postgres", "nobody")),
        "a blank property counts as unset");
  }

  @Test
  void aFreshMachineWithoutPostgresFallsBackToNobody() {
    Accounts accounts = new Accounts("root", "nobody");
    assertEquals("nobody", ServerUser.chooseAccount(null, accounts));
    assertEquals(List.of("postgres", "nobody"), accounts.asked);
  }

  @Test
  void aSystemWithNeitherAccountIsToldHowToFixIt() {
    PostgresStartException e = assertThrows(PostgresStartException.class,
        () -> ServerUser.chooseAccount(null, new Accounts("root")));
    assertTrue(e.getMessage().contains("'postgres'") && e.getMessage().contains("'nobody'"), e.getMessage());
    assertTrue(e.getMessage().contains("useradd"), e.getMessage());
    assertTrue(e.getMessage().contains("-Dshardwise.testkit.osUser"), e.getMessage());
  }

  @Test
  void theRealLookupRefusesAConfiguredAccountThatDoesNotExist() throws IOException {
    assumeTrue(jvmIsRoot(), "only a root JVM switches to another account");
    String missing = "shardwise-no-such-account";
    PostgresStartException e = assertThrows(PostgresStartException.class, () -> ServerUser.detect(missing));
    assertTrue(e.getMessage().contains("useradd --system --user-group " + missing), e.getMessage());
  }

  @Test
  void theRealLookupFindsNobody() throws IOException {
    assumeTrue(jvmIsRoot(), "only a root JVM switches to another account");
    ServerUser nobody = ServerUser.detect("nobody");
    assertEquals("nobody", nobody.name());
    assertTrue(nobody.switchesUser());
    assertTrue(nobody.command(List.of("postgres")).contains("--reuid=nobody"), nobody.command(List.of("postgres")).toString());
  }

  static boolean jvmIsRoot() throws IOException {
    return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
  }
}
