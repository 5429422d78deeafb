package io.shardwise.spring.boot.autoconfigure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.internal.Setting;
import io.shardwise.hibernate.internal.SettingRegistry;
import io.shardwise.spring.boot.autoconfigure.properties.ShardProperties;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.json.JsonParserFactory;

/**
 * The starter's properties are the runtime's settings in Spring's spelling: each one is a key of the
 * runtime's settings registry, and a default the starter states (in {@link ShardwiseProperties} and so
 * in its configuration metadata and docs/spring-boot.md) is the registry's. A default changed in
 * {@code SettingRegistry} fails here until the starter says the same.
 */
class PropertiesRegistryTest {
  /** Properties of the starter's own, which never reach Hibernate. */
  private static final List<String> STARTER_OWN = List.of("shardwise.web.", "shardwise.sql.");

  /** Maps keyed by shard id or key, checked per entry below. */
  private static final Set<String> MAPS = Set.of("shardwise.shard", "shardwise.range", "shardwise.directory");

  @Test
  void everyPropertyIsARegisteredSettingWithItsDefault() throws IOException {
    List<String> problems = new ArrayList<>();
    int withDefault = 0;
    for (Map<String, Object> property : metadata()) {
      String name = (String) property.get("name");
      if (STARTER_OWN.stream().anyMatch(name::startsWith) || MAPS.contains(name)) {
        continue;
      }
      String key = name.replace('-', '_');
      Setting setting;
      try {
        setting = SettingRegistry.get(key);
      } catch (IllegalArgumentException e) {
        problems.add(name + " is not a runtime setting (" + key + " is not in SettingRegistry)");
        continue;
      }
      Object stated = property.get("defaultValue");
      if (stated != null) {
        withDefault++;
        if (!String.valueOf(stated).equals(setting.defaultValue())) {
          problems.add(name + " defaults to " + stated + " in ShardwiseProperties, but the runtime's default is "
              + setting.defaultText());
        }
      }
    }
    assertTrue(withDefault > 10, "the metadata carries the defaults of ShardwiseProperties");
    assertEquals(List.of(), problems);
  }

  @Test
  void aShardsWeightDefaultsAsTheRuntimes() {
    Setting weight = SettingRegistry.get("shardwise.shard.<id>.weight");
    assertEquals(weight.defaultInt(), new ShardProperties().getWeight());
  }

  @Test
  void everyKeyTheStarterHandsToHibernateIsRegistered() {
    List<String> unknown = new ShardwiseProperties().toHibernateProperties().keySet().stream()
        .filter(key -> SettingRegistry.all().stream().noneMatch(s -> s.name().equals(key))).toList();
    assertEquals(List.of(), unknown);
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> metadata() throws IOException {
    try (InputStream in = PropertiesRegistryTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return (List<Map<String, Object>>) JsonParserFactory.getJsonParser().parseMap(json).get("properties");
    }
  }
}
