package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.transaction.TransactionInDoubtException;
import io.shardwise.hibernate.transaction.internal.CoordinatorCrash;
import io.shardwise.hibernate.transaction.internal.CrossShardService;
import io.shardwise.hibernate.transaction.internal.FaultInjector.Point;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * The bank invariant under two-phase commit: random transfers (400; 1,000 in the {@code long}
 * profile) between 20 accounts on two
 * shards, with the coordinator dying at every crash point, the prepared shard's primary killed
 * during prepare, the deciding shard's primary killed before its commit, and the prepared shard
 * restarted between the phases. After recovery: no prepared transaction anywhere, each
 * transfer has both legs or none (and exactly what its outcome promised), every balance equals its
 * opening balance plus its legs, and the total is unchanged.
 */
@ShardedPostgres(shards = 2)
class TwoPhaseBankTest {
  private static final int ACCOUNTS = 20;
  /** 400 in the default build; the {@code long} profile runs 1,000. */
  private static final int TRANSFERS = Integer.getInteger("bank.transfers", 400);
  /** Where in the run the node faults come: a quarter, half, three fifths and three quarters in. */
  private static final int KILL_1 = TRANSFERS / 4;
  private static final int RESTART = TRANSFERS / 2;
  private static final int KILL_DECIDER = TRANSFERS * 3 / 5;
  private static final int KILL_2 = TRANSFERS * 3 / 4;

  private enum Expect { BOTH, NONE, EITHER }

  @Test
  void transfersWithFaultsKeepTheSumOfBalances(PostgresTopology pg) throws Exception {
    Map<String, Expect> expected = new HashMap<>();
    Map<String, Integer> faults = new HashMap<>();
    try (SessionFactory sf = BankFixture.openWithAccounts(pg, ACCOUNTS)) {
      ShardedSessions shards = ShardedSessions.of(sf);
      CrossShardService service = BankFixture.service(sf);
      Random random = new Random(8);
      for (int i = 0; i < TRANSFERS; i++) {
        String id = "t" + i;
        long from = 1 + random.nextInt(ACCOUNTS);
        long to = 1 + random.nextInt(ACCOUNTS - 1);
        if (to >= from) {
          to++;
        }
        long amount = 1 + random.nextInt(200);
        if (i == KILL_1 || i == RESTART || i == KILL_DECIDER || i == KILL_2) {
          from = BankFixture.key(shards, "shard0", 1);
          to = BankFixture.key(shards, "shard1", 1);
          amount = 1;
        }
        boolean crossShard = !shards.shardFor(from).equals(shards.shardFor(to));
        int dice = random.nextInt(100);
        String fault;
        if (i == KILL_1 || i == KILL_2) {
          fault = "kill the prepared shard during prepare";
        } else if (i == RESTART) {
          fault = "restart the prepared shard after prepare";
        } else if (i == KILL_DECIDER) {
          fault = "kill the decider before its commit";
        } else if (dice < 4) {
          fault = "crash after prepare";
        } else if (dice < 8) {
          fault = "crash after decision";
        } else if (dice < 11) {
          fault = "crash between commits";
        } else {
          fault = null;
        }
        service.faultInjector(injector(fault, pg));
        boolean crashed = false;
        final long debit = from;
        final long credit = to;
        final long sum = amount;
        try {
          BankFixture.transfer(shards, id, debit, credit, sum);
          expected.put(id, Expect.BOTH);
        } catch (CoordinatorCrash crash) {
          crashed = true;
          expected.put(id, fault.equals("crash after prepare") ? Expect.NONE : Expect.BOTH);
        } catch (TransactionInDoubtException inDoubt) {
          expected.put(id, Expect.EITHER);
        } catch (RuntimeException refused) {
          // insufficient funds, a shard lost during prepare, a stale pooled connection after a restart
          expected.put(id, Expect.NONE);
        } finally {
          service.faultInjector(null);
        }
        if (fault != null && crossShard) {
          faults.merge(fault, 1, Integer::sum);
        }
        for (PostgresNode node : pg.nodes()) {
          if (!node.isRunning()) {
            node.start();
          }
        }
        if (crashed || fault != null || expected.get(id) != Expect.BOTH) {
          // a crashed coordinator's replacement recovers at startup; here the same runtime stands in
          // for it (and releases the row locks that in-doubt transactions hold before going on)
          service.recoverNow();
        }
      }
      service.recoverNow();
    }

    assertEquals(List.of(), BankFixture.preparedTransactions(pg), "no prepared transaction is left anywhere");
    Map<String, Integer> legs = BankFixture.legsByTransfer(pg);
    int committed = 0;
    for (Map.Entry<String, Expect> e : expected.entrySet()) {
      int found = legs.getOrDefault(e.getKey(), 0);
      assertTrue(found == 0 || found == 2, e.getKey() + " is half-applied: " + found + " leg(s)");
      if (e.getValue() == Expect.BOTH) {
        assertEquals(2, found, e.getKey() + " was committed and must be on both shards");
      } else if (e.getValue() == Expect.NONE) {
        assertEquals(0, found, e.getKey() + " was not committed and must be on no shard");
      }
      committed += found / 2;
    }
    Map<Long, Long> balances = BankFixture.balances(pg);
    Map<Long, Long> moved = BankFixture.legSums(pg);
    for (long account = 1; account <= ACCOUNTS; account++) {
      assertEquals(BankFixture.INITIAL + moved.getOrDefault(account, 0L), balances.get(account),
          "account " + account + " = opening balance + its legs");
    }
    assertEquals(ACCOUNTS * BankFixture.INITIAL, BankFixture.total(pg), "the sum of balances is unchanged");

    System.out.printf("2PC bank: %d transfers, %d committed, faults %s%n", TRANSFERS, committed, faults);
    assertTrue(committed > TRANSFERS / 2, "most transfers commit: " + committed);
    assertTrue(faults.values().stream().mapToInt(Integer::intValue).sum() >= TRANSFERS / 20, "faults injected: " + faults);
    assertEquals(6, faults.keySet().size(), "every kind of fault was injected: " + faults);
  }

  /** The fault as a hook; shards are named by the hook (the prepared one, or the decider). */
  private static io.shardwise.hibernate.transaction.internal.FaultInjector injector(String fault, PostgresTopology pg) {
    if (fault == null) {
      return null;
    }
    Map<Point, java.util.function.Consumer<String>> actions = new EnumMap<>(Point.class);
    switch (fault) {
      case "crash after prepare" -> actions.put(Point.AFTER_PREPARE, shard -> crash(fault));
      case "crash after decision" -> actions.put(Point.AFTER_DECISION, shard -> crash(fault));
      case "crash between commits" -> actions.put(Point.AFTER_COMMIT, shard -> crash(fault));
      case "kill the prepared shard during prepare" -> actions.put(Point.BEFORE_PREPARE, shard -> primary(pg, shard).kill());
      case "restart the prepared shard after prepare" -> actions.put(Point.AFTER_PREPARE, decider -> {
        PostgresNode prepared = primary(pg, decider.equals("shard0") ? "shard1" : "shard0");
        prepared.stop();
        prepared.start();
      });
      case "kill the decider before its commit" -> actions.put(Point.AFTER_PREPARE, decider -> primary(pg, decider).kill());
      default -> throw new IllegalArgumentException(fault);
    }
    return (point, gid, shard) -> {
      java.util.function.Consumer<String> action = actions.get(point);
      if (action != null) {
        action.accept(shard);
      }
    };
  }

  private static PostgresNode primary(PostgresTopology pg, String shardId) {
    return pg.shard(Integer.parseInt(shardId.substring("shard".length()))).primary();
  }

  private static void crash(String fault) {
    throw new CoordinatorCrash("coordinator dies: " + fault);
  }
}
