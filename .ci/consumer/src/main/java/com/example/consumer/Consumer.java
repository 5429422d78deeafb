package com.example.consumer;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.spring.WithShard;

/** Prints where the staged Shardwise classes were loaded from, so the run shows what it resolved. */
public final class Consumer {
  public static void main(String[] args) {
    for (Class<?> type : new Class<?>[] {ShardedSessions.class, WithShard.class}) {
      System.out.println(type.getName() + " from " + type.getProtectionDomain().getCodeSource().getLocation());
    }
  }
}
