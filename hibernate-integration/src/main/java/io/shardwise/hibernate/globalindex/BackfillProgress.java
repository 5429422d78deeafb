package io.shardwise.hibernate.globalindex;

/**
 * Progress of a {@code @GlobalIndex} backfill, reported after every batch.
 *
 * @param shard the shard whose entities are being indexed
 * @param done entities of that shard indexed so far
 * @param total entities of that shard when its backfill started
 */
public record BackfillProgress(String shard, long done, long total) {}
