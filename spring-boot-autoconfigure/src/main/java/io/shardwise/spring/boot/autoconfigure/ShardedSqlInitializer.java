package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardingConfigurationException;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.sql.autoconfigure.init.ApplicationScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.context.ResourceLoaderAware;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.io.support.ResourcePatternResolver;
import org.springframework.core.io.support.ResourcePatternUtils;

/**
 * Spring Boot's {@code spring.sql.init} on a sharded database, in place of Boot's own initializer
 * (which would run every script on whichever shard its connection reached): the same properties
 * and defaults ({@code schema.sql}, {@code data.sql}, {@code mode}, {@code separator},
 * {@code encoding}); schema scripts run on every shard, data scripts row by row on the shard of each
 * row's key, reference tables on every shard, and nothing runs when a statement cannot be routed.
 * Runs once the entity model is built (it needs it to route), i.e. after the
 * {@code EntityManagerFactory} and Shardwise's schema action, whatever
 * {@code spring.jpa.defer-datasource-initialization} says. As in Boot, mode {@code embedded} (the
 * default) runs nothing on PostgreSQL: set {@code spring.sql.init.mode=always}.
 */
final class ShardedSqlInitializer implements ApplicationScriptDatabaseInitializer, InitializingBean, ResourceLoaderAware {
  private final SeedScripts scripts;
  private final DatabaseInitializationSettings settings;
  private ResourcePatternResolver resources;

  ShardedSqlInitializer(SeedScripts scripts, DatabaseInitializationSettings settings) {
    this.scripts = scripts;
    this.settings = settings;
  }

  @Override
  public void setResourceLoader(ResourceLoader resourceLoader) {
    this.resources = ResourcePatternUtils.getResourcePatternResolver(resourceLoader);
  }

  @Override
  public void afterPropertiesSet() {
    if (settings.getMode() != DatabaseInitializationMode.ALWAYS) {
      return;
    }
    if (settings.isContinueOnError()) {
      throw new ShardingConfigurationException("spring.sql.init.continue-on-error=true: with Shardwise each shard runs"
          + " its part of the scripts in one transaction, which a failed statement ends; remove the setting and fix"
          + " the statement");
    }
    Charset encoding = settings.getEncoding() != null ? settings.getEncoding() : StandardCharsets.UTF_8;
    String separator = settings.getSeparator() != null ? settings.getSeparator() : ";";
    scripts.apply(resolve(settings.getSchemaLocations(), "schema"), resolve(settings.getDataLocations(), "data"),
        separator, encoding);
  }

  private List<Resource> resolve(List<String> locations, String kind) {
    List<Resource> found = new ArrayList<>();
    if (locations == null) {
      return found;
    }
    for (String location : locations) {
      boolean optional = location.startsWith("optional:");
      String path = optional ? location.substring("optional:".length()) : location;
      try {
        List<Resource> existing = Arrays.stream(resources.getResources(path)).filter(Resource::exists).toList();
        if (existing.isEmpty() && !optional) {
          throw new ShardingConfigurationException("spring.sql.init: no " + kind + " scripts found at location '"
              + path + "'");
        }
        found.addAll(existing);
      } catch (IOException e) {
        throw new ShardingConfigurationException("spring.sql.init: cannot resolve " + kind + " scripts at '" + path
            + "': " + e.getMessage(), e);
      }
    }
    return found;
  }
}
