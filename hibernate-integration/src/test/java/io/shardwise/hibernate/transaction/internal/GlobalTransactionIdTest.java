package io.shardwise.hibernate.transaction.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The coordinator checks the parts of the ids it builds by hand, recovery parses listed gids with
 * a regular expression: both must accept and refuse the same text.
 */
class GlobalTransactionIdTest {
  private static final String COORDINATOR = "0123456789abcdef";
  private static final String INCARNATION = "a1b2c3d4e5f6";

  @Test
  void anIdItBuildsParsesBackToItself() {
    GlobalTransactionId id = new GlobalTransactionId(COORDINATOR, "shard-1.eu_2", INCARNATION, -1L);

    assertEquals("sw:0123456789abcdef:shard-1.eu_2:a1b2c3d4e5f6:18446744073709551615", id.gid());
    assertEquals("'" + id.gid() + "'", id.sqlLiteral());
    assertEquals(id.gid(), GlobalTransactionId.parse(id.gid()).gid());
  }

  @Test
  void refusesWhatParseRefuses() {
    for (String coordinator : new String[] {null, "", "0123456789abcde", "0123456789abcdef0", "0123456789abcdeF",
        "0123456789abcdeg"}) {
      assertThrows(IllegalArgumentException.class, () -> new GlobalTransactionId(coordinator, "s", INCARNATION, 1),
          String.valueOf(coordinator));
    }
    for (String shard : new String[] {null, "", "-s", ".s", "s'", "s:1", "s 1", "é", "s".repeat(64)}) {
      assertThrows(IllegalArgumentException.class, () -> new GlobalTransactionId(COORDINATOR, shard, INCARNATION, 1),
          String.valueOf(shard));
      if (shard != null) {
        assertNull(GlobalTransactionId.parse("sw:" + COORDINATOR + ":" + shard + ":" + INCARNATION + ":1"), shard);
      }
    }
    for (String incarnation : new String[] {null, "a1b2c3d4e5f", "a1b2c3d4e5f67", "A1B2C3D4E5F6", "a1b2c3d4e5f'"}) {
      assertThrows(IllegalArgumentException.class, () -> new GlobalTransactionId(COORDINATOR, "s", incarnation, 1),
          String.valueOf(incarnation));
    }
    assertEquals("s".repeat(63), new GlobalTransactionId(COORDINATOR, "s".repeat(63), INCARNATION, 1).deciderShard());
    assertEquals("_", new GlobalTransactionId(COORDINATOR, "_", INCARNATION, 1).deciderShard());
  }
}
