package io.shardwise.hibernate;

/**
 * The state of the circuit breaker in front of one server (a shard's primary or one replica).
 * docs/failure-handling.md describes the breaker and its settings.
 */
public enum BreakerState {
  /** Calls go through; consecutive timeouts and connection failures are counted. */
  CLOSED,
  /** Calls fail at once, without touching the server, until the open interval has passed. */
  OPEN,
  /** One call, the probe, is checking the server; the others still fail at once. */
  HALF_OPEN
}
