/**
 * Metrics and traces: the recorder and the observer Shardwise's components report to. Micrometer is
 * an optional dependency; only {@code metrics.internal} refers to it, and it is loaded only when a
 * {@code MeterRegistry} or an {@code ObservationRegistry} is configured. The meters and the
 * observations are listed in docs/operations.md.
 */
package io.shardwise.hibernate.metrics;
