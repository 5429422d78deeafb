package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.testkit.PostgresTopology;
import java.util.LinkedHashMap;
import java.util.Map;

/** shardwise.* of a 2-shard topology, for an application a test starts itself (to watch it fail). */
final class StandaloneSettings {
  private StandaloneSettings() {}

  static Map<String, Object> of(PostgresTopology pg) {
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("shardwise.shards", "s0,s1");
    for (int i = 0; i < 2; i++) {
      settings.put("shardwise.shard.s" + i + ".url", pg.shard(i).primary().jdbcUrl());
    }
    settings.put("shardwise.user", pg.shard(0).primary().user());
    settings.put("spring.main.web-application-type", "none");
    return settings;
  }
}
