/**
 * Operating a sharded deployment: the hotspot report ({@link io.shardwise.hibernate.operations.Hotspots})
 * and the operations web page ({@link io.shardwise.hibernate.operations.OperationsPage}). The
 * counters, the key summary, the statistics check and the HTTP server live in {@code .internal}.
 */
package io.shardwise.hibernate.operations;
