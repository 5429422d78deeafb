package io.shardwise.hibernate.readwrite.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The SQL side of the read-only lock guard: every PostgreSQL locking clause, and nothing else. */
class RowLocksTest {

  @Test
  void findsEveryLockingClauseHibernateAndUsersWrite() {
    assertEquals("FOR UPDATE", RowLocks.lockClause("select * from product where sku=? for update"));
    assertEquals("FOR NO KEY UPDATE", RowLocks.lockClause("select p1_0.sku from product p1_0 where p1_0.sku=? for no key update"));
    assertEquals("FOR SHARE", RowLocks.lockClause("select * from product for share of product nowait"));
    assertEquals("FOR KEY SHARE", RowLocks.lockClause("SELECT stock FROM product WHERE sku = 1 FOR\n  KEY   SHARE"));
    assertEquals("FOR UPDATE", RowLocks.lockClause("select * from product for update skip locked"));
  }

  @Test
  void ignoresLiteralsCommentsAndLookalikes() {
    assertNull(RowLocks.lockClause("select * from product where note = 'for update'"));
    assertNull(RowLocks.lockClause("select * from product where note = 'it''s for update'"));
    assertNull(RowLocks.lockClause("select * from product -- for update\nwhere sku = 1"));
    assertNull(RowLocks.lockClause("select * from product /* for share */ where sku = 1"));
    assertNull(RowLocks.lockClause("select formula, forupdate from product"));
    assertNull(RowLocks.lockClause("update product set stock = 1"));
  }

  @Test
  void namesTheTablesOfTheStatement() {
    assertEquals(List.of("product", "sale"),
        RowLocks.tables("select * from public.product p join \"sale\" s on s.sku = p.sku for update"));
  }

  @Test
  void remembersLockFreeSqlButNeverALockingStatement() {
    KnownLockFree known = new KnownLockFree(10, 10_000);
    String plain = "select a.id from account a order by a.id desc";
    String locking = "select a.id from account a where a.id = ? for update";

    assertNull(RowLocks.lockClause(plain, known));
    assertTrue(known.contains(plain));
    assertNull(RowLocks.lockClause(plain, known));
    assertEquals(1, known.size());

    assertEquals("FOR UPDATE", RowLocks.lockClause(locking, known));
    assertEquals("FOR UPDATE", RowLocks.lockClause(locking, known), "a locking statement is refused every time");
    assertFalse(known.contains(locking));
    assertEquals(1, known.size());
  }

  @Test
  void stopsRememberingAtItsBoundsSoEverChangingSqlCannotGrowMemory() {
    KnownLockFree byCount = new KnownLockFree(3, 1_000_000);
    for (int i = 0; i < 100; i++) {
      assertNull(RowLocks.lockClause("select * from product where sku = " + i, byCount));
    }
    assertEquals(3, byCount.size());
    assertFalse(byCount.contains("select * from product where sku = 99"));

    KnownLockFree byChars = new KnownLockFree(1_000, 100);
    String big = "select * from product where note = '" + "x".repeat(200) + "'";
    assertNull(RowLocks.lockClause(big, byChars));
    assertFalse(byChars.contains(big), "a statement larger than the character budget is scanned, not kept");
    assertEquals(0, byChars.size());
    String small = "select * from product where sku = 1";
    assertNull(RowLocks.lockClause(small, byChars));
    assertTrue(byChars.contains(small));
    assertEquals("FOR SHARE", RowLocks.lockClause(big + " for share", byChars), "still scanned once the budget is full");
  }
}
