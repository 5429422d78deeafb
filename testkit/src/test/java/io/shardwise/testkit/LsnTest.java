package io.shardwise.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LsnTest {

  @Test
  void parsesAndPrintsTheServersFormat() {
    Lsn lsn = Lsn.parse("16/B374D848");
    assertEquals(0x16B374D848L, lsn.value());
    assertEquals("16/B374D848", lsn.toString());
    assertEquals("0/0", new Lsn(0).toString());
  }

  @Test
  void ordersLikeTheServerIncludingTheHighHalf() {
    assertTrue(Lsn.parse("1/0").isAtOrAfter(Lsn.parse("0/FFFFFFFF")));
    assertFalse(Lsn.parse("0/3000060").isAtOrAfter(Lsn.parse("0/3000061")));
    assertTrue(Lsn.parse("FFFFFFFF/0").compareTo(Lsn.parse("7FFFFFFF/FFFFFFFF")) > 0, "unsigned order");
  }

  @Test
  void rejectsTextThatIsNotAnLsn() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Lsn.parse("3000060"));
    assertTrue(e.getMessage().contains("'3000060'"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Lsn.parse("0/"));
    assertThrows(IllegalArgumentException.class, () -> Lsn.parse(null));
  }
}
