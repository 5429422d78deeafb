package io.shardwise.hibernate.routing.internal;

/**
 * What {@link Router#shardFor(long, BucketCounter)} and {@link Router#shardFor(Object, BucketCounter)}
 * tell about a key they route: the bucket it
 * already computed, so a counter on the routing path does not hash the key a second time.
 */
public interface BucketCounter {
  /** One routed key and its bucket under the current map's bucket count. */
  void count(long key, int bucket);

  /** One routed key whose strategy has no buckets. */
  void count(long key);

  /** One routed key of any type (not null) and its bucket under the current map's bucket count. */
  void count(Object key, int bucket);

  /** One routed key of any type whose strategy has no buckets. */
  void count(Object key);
}
