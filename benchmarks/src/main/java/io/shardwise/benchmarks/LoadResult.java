package io.shardwise.benchmarks;

/** One measured cell of a workload: a system at a thread count. */
record LoadResult(String subject, int threads, long operations, double seconds, double p50Micros, double p99Micros,
    long errors, String firstError) {

  double opsPerSecond() {
    return seconds == 0 ? 0 : operations / seconds;
  }
}
