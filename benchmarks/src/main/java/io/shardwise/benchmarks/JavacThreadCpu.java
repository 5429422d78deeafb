package io.shardwise.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.ToolProvider;

/**
 * One {@code javac} run in this JVM, its CPU split by thread: the main thread (parsing,
 * attribution, the annotation processors), the JIT compiler threads, the GC threads and the whole
 * process. On a loaded machine wall time says little; these say where a processor's cost lands.
 * {@link BuildTimeBenchmark} leaves each compilation's arguments in {@code javac.args}, so:
 *
 * <pre>{@code
 * java -Xms8m -cp benchmarks/target/classes io.shardwise.benchmarks.JavacThreadCpu \
 *     @target/build-time/model-260/shardwise/javac.args
 * }</pre>
 *
 * <p>Only this module's classes on the class path: the processor path must be the only place the
 * processors load from. {@code -Xms8m} is what the {@code javac} launcher sets. Linux only (the
 * threads are read from {@code /proc/self/task}); threads that ended before the compilation did
 * are counted in the process only.
 */
public final class JavacThreadCpu {

  private static final long NANOS_PER_TICK = 10_000_000L;

  private JavacThreadCpu() {}

  public static void main(String[] args) throws IOException {
    long start = System.nanoTime();
    int exit = ToolProvider.getSystemJavaCompiler().run(null, null, null, args);
    double wall = (System.nanoTime() - start) / 1e9;
    double main = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1e9;
    double process = ((com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
    long jit = 0;
    long gc = 0;
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
      for (Path task : tasks) {
        String name = Files.readString(task.resolve("comm")).strip();
        long cpu = cpuNanos(Files.readString(task.resolve("stat")));
        if (name.contains("CompilerThre")) {
          jit += cpu;
        } else if (name.startsWith("GC ") || name.startsWith("G1 ")) {
          gc += cpu;
        }
      }
    }
    System.out.printf("exit %d, wall %.2f s, CPU: main thread %.2f s, JIT %.2f s, GC %.2f s,"
        + " process %.2f s%n", exit, wall, main, jit / 1e9, gc / 1e9, process);
  }

  /** utime + stime of a {@code /proc/<pid>/task/<tid>/stat} line (fields 14 and 15). */
  private static long cpuNanos(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
  }
}
