package io.shardwise.benchmarks;

/** What both workload entities offer: a shard key and a name that writes change and reads check. */
public interface BenchProfile {
  String getName();

  void setName(String name);
}
