package io.shardwise.hibernate.readwrite;

/**
 * What the replica monitor last saw of one replica.
 *
 * @param healthy whether it serves reads now
 * @param reason why not (lag, paused replay, unreachable), or "ok"
 * @param replayLsn its last replayed WAL position as PostgreSQL prints it, or null if unknown
 * @param lagBytes how far its replay is behind its primary's WAL position, or -1 if unknown
 * @param lagMillis how long ago the last transaction it replayed committed, when it is behind; 0 when caught up
 * @param checkedAtMillis when the monitor last checked it (epoch millis), 0 before the first check
 */
public record ReplicaStatus(String shardId, String url, boolean healthy, String reason, String replayLsn,
    long lagBytes, long lagMillis, long checkedAtMillis) {}
