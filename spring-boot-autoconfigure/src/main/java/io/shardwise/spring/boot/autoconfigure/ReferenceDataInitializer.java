package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardingConfigurationException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

/**
 * {@code shardwise.sql.init.locations}: seed scripts run at startup, after the schema action, routed
 * as {@code spring.sql.init}'s data scripts are ({@link SeedScripts}): rows of sharded tables on
 * their key's shard, reference tables on every shard, nothing at all when a statement cannot be
 * routed. For development and tests; in production, {@code @ReferenceTable} rows change through
 * {@code shards.referenceTables()}, atomically on every shard.
 */
final class ReferenceDataInitializer implements InitializingBean {
  private final SeedScripts scripts;
  private final ResourceLoader resources;
  private final List<String> locations;

  ReferenceDataInitializer(SeedScripts scripts, ResourceLoader resources, List<String> locations) {
    this.scripts = scripts;
    this.resources = resources;
    this.locations = List.copyOf(locations);
  }

  @Override
  public void afterPropertiesSet() {
    List<Resource> found = new ArrayList<>();
    for (String location : locations) {
      Resource script = resources.getResource(location);
      if (!script.exists()) {
        throw new ShardingConfigurationException("shardwise.sql.init.locations names " + location
            + ", which does not exist");
      }
      found.add(script);
    }
    scripts.apply(List.of(), found, ";", StandardCharsets.UTF_8);
  }
}
