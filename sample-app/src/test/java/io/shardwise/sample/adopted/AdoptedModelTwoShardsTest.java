package io.shardwise.sample.adopted;

import io.shardwise.testkit.junit.ShardedPostgres;

/** The adopted model on two shards. */
@ShardedPostgres(shards = 2)
class AdoptedModelTwoShardsTest extends AdoptedModelChecks {}
