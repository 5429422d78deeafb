package io.shardwise.benchmarks;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongFunction;

/**
 * Runs one closed-loop load: {@code threads} workers call a lookup with uniformly random ids in
 * {@code 1..rows} as fast as they can, first for a warm-up, then for a measured interval. Every
 * measured call's latency is kept, so percentiles are exact rather than estimated.
 */
final class LoadRunner {
  private static final int WARMUP = 0;
  private static final int MEASURE = 1;
  private static final int STOP = 2;

  private volatile int phase = WARMUP;
  private final LongAdder completed = new LongAdder();
  private final LongAdder errors = new LongAdder();
  /** CPU time the workers spent in the measured interval, in nanoseconds (their threads only: the client's work). */
  private final LongAdder measuredCpuNanos = new LongAdder();
  /** Heap bytes the workers allocated in the measured interval (their threads only; deterministic, unlike CPU time). */
  private final LongAdder measuredAllocatedBytes = new LongAdder();
  private volatile String firstError;

  private LoadRunner() {}

  static LoadResult run(String subject, int threads, Duration warmup, Duration duration, int rows,
      LongFunction<Customer> lookup) throws InterruptedException {
    return new LoadRunner().go(subject, threads, warmup, duration, rows, lookup);
  }

  /** The latencies one worker measured, in nanoseconds; grows by doubling. */
  private static final class Latencies {
    long[] values = new long[1 << 16];
    int size;

    void add(long nanos) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = nanos;
    }
  }

  private LoadResult go(String subject, int threads, Duration warmup, Duration duration, int rows,
      LongFunction<Customer> lookup) throws InterruptedException {
    List<Thread> workers = new ArrayList<>();
    Latencies[] latencies = new Latencies[threads];
    for (int t = 0; t < threads; t++) {
      Latencies mine = latencies[t] = new Latencies();
      Thread worker = new Thread(() -> work(rows, lookup, mine), subject + "-" + t);
      worker.setDaemon(true);
      workers.add(worker);
    }
    System.out.printf("%s, %d thread(s): %d s warm-up...%n", subject, threads, warmup.toSeconds());
    workers.forEach(Thread::start);
    Thread.sleep(warmup.toMillis());

    long start = System.nanoTime();
    phase = MEASURE;
    long end = start + duration.toNanos();
    long lastCount = completed.sum();
    long lastTime = start;
    while (true) {
      long now = System.nanoTime();
      if (now >= end) {
        break;
      }
      Thread.sleep(Math.min(2_000, Math.max(1, (end - now) / 1_000_000)));
      long count = completed.sum();
      long time = System.nanoTime();
      System.out.printf("  %s, %d thread(s): %4.1f / %d s, %,8.0f ops/s%n", subject, threads,
          (time - start) / 1e9, duration.toSeconds(), (count - lastCount) / ((time - lastTime) / 1e9));
      lastCount = count;
      lastTime = time;
    }
    phase = STOP;
    long stop = System.nanoTime();
    for (Thread worker : workers) {
      worker.join(30_000);
      if (worker.isAlive()) {
        throw new IllegalStateException(worker.getName() + " did not stop within 30 s");
      }
    }

    int total = 0;
    for (Latencies l : latencies) {
      total += l.size;
    }
    long[] all = new long[total];
    int at = 0;
    for (Latencies l : latencies) {
      System.arraycopy(l.values, 0, all, at, l.size);
      at += l.size;
    }
    Arrays.sort(all);
    return new LoadResult(subject, threads, total, (stop - start) / 1e9, Workloads.percentile(all, 0.50) / 1e3,
        Workloads.percentile(all, 0.99) / 1e3, errors.sum(), firstError,
        total == 0 ? 0 : measuredCpuNanos.sum() / 1e3 / total,
        total == 0 ? 0 : (double) measuredAllocatedBytes.sum() / total);
  }

  private void work(int rows, LongFunction<Customer> lookup, Latencies latencies) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    ThreadMXBean cpu = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    long cpuAtMeasureStart = -1;
    long bytesAtMeasureStart = -1;
    int p;
    while ((p = phase) != STOP) {
      if (p == MEASURE && cpuAtMeasureStart < 0) {
        cpuAtMeasureStart = cpu.getCurrentThreadCpuTime();
        bytesAtMeasureStart = cpu.getCurrentThreadAllocatedBytes();
      }
      long id = random.nextLong(1, rows + 1L);
      long t0 = System.nanoTime();
      Customer found;
      try {
        found = lookup.apply(id);
      } catch (RuntimeException e) {
        found = null;
        if (firstError == null) {
          firstError = e.toString();
        }
      }
      long t1 = System.nanoTime();
      if (found == null || found.getId() != id) {
        errors.increment();
        if (firstError == null) {
          firstError = "customer " + id + " not found (got " + (found == null ? "null" : found.getId()) + ")";
        }
      }
      // Only calls that started and ended inside the measured interval count.
      if (p == MEASURE && phase == MEASURE) {
        latencies.add(t1 - t0);
        completed.increment();
      }
    }
    if (cpuAtMeasureStart >= 0) {
      measuredCpuNanos.add(cpu.getCurrentThreadCpuTime() - cpuAtMeasureStart);
      measuredAllocatedBytes.add(cpu.getCurrentThreadAllocatedBytes() - bytesAtMeasureStart);
    }
  }

}
