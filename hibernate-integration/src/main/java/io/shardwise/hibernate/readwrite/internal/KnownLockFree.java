package io.shardwise.hibernate.readwrite.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * SQL strings already found to lock no rows, so that a statement Hibernate prepares again (it hands
 * the same {@code String} instance each time, whose hash is cached) skips the scan. Bounded: once
 * {@code maxEntries} strings or {@code maxChars} characters are remembered it stops adding — SQL
 * that changes on every call (native SQL with inlined values) is then scanned as before, and never
 * grows memory. Only lock-free SQL is remembered; a locking statement is scanned, and refused, every time.
 */
final class KnownLockFree {
  private final ConcurrentHashMap<String, Boolean> known = new ConcurrentHashMap<>();
  private final AtomicInteger entries = new AtomicInteger();
  private final AtomicLong chars = new AtomicLong();
  private final int maxEntries;
  private final long maxChars;

  KnownLockFree(int maxEntries, long maxChars) {
    this.maxEntries = maxEntries;
    this.maxChars = maxChars;
  }

  boolean contains(String sql) {
    return known.containsKey(sql);
  }

  /** Remembers {@code sql} as lock-free unless the bounds are reached. */
  void add(String sql) {
    if (entries.get() >= maxEntries || chars.get() + sql.length() > maxChars) {
      return;
    }
    if (known.putIfAbsent(sql, Boolean.TRUE) == null) {
      entries.incrementAndGet();
      chars.addAndGet(sql.length());
    }
  }

  int size() {
    return entries.get();
  }
}
