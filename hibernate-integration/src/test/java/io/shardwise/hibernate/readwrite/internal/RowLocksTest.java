package io.shardwise.hibernate.readwrite.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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
}
