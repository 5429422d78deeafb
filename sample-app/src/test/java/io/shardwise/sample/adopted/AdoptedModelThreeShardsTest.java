package io.shardwise.sample.adopted;

import io.shardwise.testkit.junit.ShardedPostgres;

/** The adopted model on three shards. */
@ShardedPostgres(shards = 3)
class AdoptedModelThreeShardsTest extends AdoptedModelChecks {}
