package io.shardwise.hibernate.resharding;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.shop.PurchaseOrder;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A continuous load for move tests: one thread inserts, updates and deletes orders of random
 * merchants through the router, retrying units of work fenced by a switch, and keeps a ledger of
 * every acknowledged effect (order id to its last customer, null when deleted). Customers are
 * {@code "w<n>"}, {@code n} the number of acknowledged writes before it, so a test can tell writes
 * made after a point.
 */
final class LedgerWriter implements AutoCloseable {
  final ConcurrentHashMap<Long, String> ledger = new ConcurrentHashMap<>();
  final AtomicLong writes = new AtomicLong();
  final AtomicLong fenced = new AtomicLong();
  final List<Throwable> errors = new CopyOnWriteArrayList<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread thread;

  /** Starts writing orders of merchants 1..{@code merchants}, which hold orders {@code m*1000+0..4} already. */
  LedgerWriter(ShardedSessions shards, int merchants) {
    for (long m = 1; m <= merchants; m++) {
      for (int o = 0; o < 5; o++) {
        ledger.put(m * 1000 + o, "customer " + o);
      }
    }
    thread = new Thread(() -> run(shards, merchants), "ledger-writer");
    thread.start();
  }

  private void run(ShardedSessions shards, int merchants) {
    java.util.Random random = new java.util.Random(7);
    long next = 500;
    while (!stop.get()) {
      long merchant = 1 + random.nextInt(merchants);
      int op = random.nextInt(3);
      long orderId = merchant * 1000 + (op == 0 ? next++ % 1000 : random.nextInt(5));
      boolean delete = op == 2 && orderId % 1000 >= 5;
      for (int attempt = 0; ; attempt++) {
        try {
          String customer = "w" + writes.get();
          shards.forKey(merchant).inTransaction(s -> {
            PurchaseOrder existing = s.find(PurchaseOrder.class, orderId);
            if (existing == null) {
              s.persist(new PurchaseOrder(orderId, merchant, customer));
            } else if (delete) {
              s.remove(existing);
            } else {
              existing.setCustomer(customer);
            }
          });
          ledger.compute(orderId, (k, v) -> v == null ? customer : delete ? null : customer);
          writes.incrementAndGet();
          break;
        } catch (BucketMovedException e) {
          fenced.incrementAndGet();
          if (attempt > 20) {
            errors.add(e);
            return;
          }
        } catch (RuntimeException e) {
          errors.add(e);
          return;
        }
      }
    }
  }

  /**
   * {@link #writtenAfter}, failing at once with the writer's errors when it has stopped on one: a
   * wait for writes that will never come would only time out without saying why.
   */
  long writtenAfterWhileAlive(long after, java.util.function.LongPredicate merchant) {
    if (!errors.isEmpty()) {
      throw new AssertionError("the ledger writer stopped on: " + errors, errors.get(0));
    }
    return writtenAfter(after, merchant);
  }

  /** The number of the last acknowledged write of each order written after write number {@code after}. */
  long writtenAfter(long after, java.util.function.LongPredicate merchant) {
    return ledger.entrySet().stream().filter(e -> e.getValue() != null && e.getValue().startsWith("w")
        && Long.parseLong(e.getValue().substring(1)) >= after && merchant.test(e.getKey() / 1000)).count();
  }

  Map<Long, String> ledger() {
    return ledger;
  }

  /**
   * Every acknowledged order exactly once, on the shard its merchant routes to ({@code s1} where
   * {@code ownedByS1}, else {@code s0}), as last written; a deleted one on neither shard.
   */
  void assertEveryWriteOnItsOwner(String s0, String s1, java.util.function.LongPredicate ownedByS1)
      throws java.sql.SQLException {
    Map<Long, String> onS0 = MoveFixture.customersById(s0);
    Map<Long, String> onS1 = MoveFixture.customersById(s1);
    for (var e : ledger.entrySet()) {
      long merchant = e.getKey() / 1000;
      Map<Long, String> owner = ownedByS1.test(merchant) ? onS1 : onS0;
      Map<Long, String> other = ownedByS1.test(merchant) ? onS0 : onS1;
      String where = "order " + e.getKey() + " (bucket " + MoveFixture.bucketOf(merchant) + ", ledger " + e.getValue()
          + ", writes " + writes.get() + ")";
      org.junit.jupiter.api.Assertions.assertEquals(e.getValue() != null, owner.containsKey(e.getKey()),
          where + " on its owner; on the other shard: " + other.containsKey(e.getKey()));
      org.junit.jupiter.api.Assertions.assertFalse(other.containsKey(e.getKey()), where + " not on the other shard");
      if (e.getValue() != null) {
        org.junit.jupiter.api.Assertions.assertEquals(e.getValue(), owner.get(e.getKey()), where + " as last written");
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    thread.join();
  }
}
