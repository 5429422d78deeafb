package io.shardwise.hibernate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * The application's threads in tests that load shards: a virtual thread per caller where the JDK
 * has them (21+, the JDK 25 leg of CI), platform threads on 17 — so the same test proves both. On a
 * JDK with virtual threads, {@link Pinning} records with JFR every carrier a virtual thread pinned
 * for longer than a threshold, with the stack that pinned it.
 */
final class CallerThreads {
  private CallerThreads() {}

  static boolean virtual() {
    return Runtime.version().feature() >= 21;
  }

  /** An executor with a thread per task: virtual threads where the JDK has them, else {@code platform} threads. */
  static ExecutorService callers(int platform) {
    if (virtual()) {
      try {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
    return Executors.newFixedThreadPool(platform);
  }

  /** A JFR recording of {@code jdk.VirtualThreadPinned} (an event JDK 17 does not have: then nothing is seen). */
  static final class Pinning implements AutoCloseable {
    private final Recording recording = new Recording();

    Pinning(Duration threshold) {
      recording.enable("jdk.VirtualThreadPinned").withThreshold(threshold).withStackTrace();
      recording.start();
    }

    /** Each pinning event seen so far, as its duration and the top frames of its stack. */
    List<String> pinned() throws IOException {
      recording.stop();
      Path file = Files.createTempFile("pinned", ".jfr");
      try {
        recording.dump(file);
        List<String> seen = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
          StringBuilder stack = new StringBuilder(event.getDuration().toMillis() + " ms pinned at");
          List<RecordedFrame> frames = event.getStackTrace() == null ? List.of() : event.getStackTrace().getFrames();
          for (RecordedFrame frame : frames.subList(0, Math.min(12, frames.size()))) {
            stack.append("\n  ").append(frame.getMethod().getType().getName()).append('.')
                .append(frame.getMethod().getName()).append(':').append(frame.getLineNumber());
          }
          seen.add(stack.toString());
        }
        return seen;
      } finally {
        Files.deleteIfExists(file);
      }
    }

    @Override
    public void close() {
      recording.close();
    }
  }
}
