package io.shardwise.benchmarks;

/** One measured cell of a workload: a system at a thread count. */
/**
 * @param cpuMicrosPerOp CPU time of the calling threads per measured operation: the client's cost of one lookup
 * @param bytesPerOp heap bytes the calling threads allocated per measured operation; unlike CPU time it does not move
 *     with the machine's load
 */
record LoadResult(String subject, int threads, long operations, double seconds, double p50Micros, double p99Micros,
    long errors, String firstError, double cpuMicrosPerOp, double bytesPerOp) {

  double opsPerSecond() {
    return seconds == 0 ? 0 : operations / seconds;
  }
}
