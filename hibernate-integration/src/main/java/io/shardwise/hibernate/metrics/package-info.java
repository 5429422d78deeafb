/**
 * Metrics: the recorder Shardwise's components report to. Micrometer is an optional dependency;
 * only {@code metrics.internal} refers to it, and it is loaded only when a {@code MeterRegistry} is
 * configured. The meters are listed in docs/operations.md.
 */
package io.shardwise.hibernate.metrics;
