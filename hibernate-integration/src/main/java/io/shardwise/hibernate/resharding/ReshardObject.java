package io.shardwise.hibernate.resharding;

/**
 * Something a move created on a shard (a replication slot, a publication, a subscription, a fence
 * trigger, an index, a changed replica identity, a table), as recorded in the control database
 * <em>before</em> it was created, so that a crash cannot leave an object nobody knows about.
 *
 * @param shard the shard it lives on
 * @param kind {@code slot}, {@code publication}, {@code subscription}, {@code fence}, {@code index},
 *     {@code replica-identity}, {@code table}
 * @param exists whether it exists now on the shard (checked by {@code status}); false once dropped
 * @param detail e.g. the replica identity to restore, or the slot's state
 */
public record ReshardObject(String shard, String kind, String name, boolean exists, String detail) {}
