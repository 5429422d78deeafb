package io.shardwise.hibernate.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.keypathalternatives.Client;
import io.shardwise.hibernate.keypathalternatives.ClientScope;
import io.shardwise.hibernate.keypathalternatives.ProtocolMapper;
import io.shardwise.hibernate.keypathalternatives.Realm;
import io.shardwise.hibernate.routing.ShardKeyType;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.OrderItem;
import io.shardwise.hibernate.shop.PurchaseOrder;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The sharding model read from generated routing metadata equals the one read by reflection, and
 * the metadata wins for the entities it lists. Hibernate's mapping is built without a database.
 */
class RoutingMetadataModelTest {

  /** Annotated with its key on id; the test resource lists it with tenantId instead. */
  @Entity(name = "Relabeled")
  public static class Relabeled {
    @Id @ShardKey Long id;
    long tenantId;
  }

  private StandardServiceRegistry registry;

  @AfterEach
  void close() {
    if (registry != null) {
      StandardServiceRegistryBuilder.destroy(registry);
    }
  }

  private Metadata metadata(Class<?>... entities) {
    registry = new StandardServiceRegistryBuilder()
        .applySetting("hibernate.dialect", "org.hibernate.dialect.PostgreSQLDialect")
        .applySetting("hibernate.boot.allow_jdbc_metadata_access", "false")
        .applySetting("shardwise.snowflake.worker_id", "1") // the realm entities' ids are @SnowflakeId
        .build();
    MetadataSources sources = new MetadataSources(registry);
    for (Class<?> entity : entities) {
      sources.addAnnotatedClass(entity);
    }
    return sources.buildMetadata();
  }

  /** What shardwise-processor writes for the shop entities. */
  private static RoutingMetadata shopMetadata() {
    Map<String, String> m = new HashMap<>();
    String merchant = "entity." + Merchant.class.getName() + ".";
    m.put(merchant + "kind", "sharded");
    m.put(merchant + "shardKey", "id");
    m.put(merchant + "shardKeyIsId", "true");
    m.put(merchant + "keyType", "long");
    m.put(merchant + "group", Merchant.class.getName());
    String order = "entity." + PurchaseOrder.class.getName() + ".";
    m.put(order + "kind", "sharded");
    m.put(order + "shardKey", "merchantId");
    m.put(order + "shardKeyIsId", "false");
    m.put(order + "keyType", "long");
    m.put(order + "coLocatedWith", Merchant.class.getName());
    m.put(order + "group", Merchant.class.getName());
    String item = "entity." + OrderItem.class.getName() + ".";
    m.put(item + "kind", "sharded");
    m.put(item + "shardKey", "merchantId");
    m.put(item + "shardKeyIsId", "false");
    m.put(item + "keyType", "long");
    m.put(item + "coLocatedWith", PurchaseOrder.class.getName());
    m.put(item + "group", Merchant.class.getName());
    m.put("entity." + Country.class.getName() + ".kind", "reference");
    m.put("query.Order.byMerchant.shardKeyParameter", "merchantId");
    return new RoutingMetadata(m);
  }

  @Test
  void metadataAndReflectionGiveEqualModels() {
    Metadata mapping = metadata(Merchant.class, PurchaseOrder.class, OrderItem.class, Country.class);
    ShardingModel fromMetadata = ShardingModel.build(mapping, "shop", shopMetadata());
    ShardingModel byReflection = ShardingModel.build(mapping, "shop", RoutingMetadata.empty());

    assertEquals(Set.copyOf(byReflection.entities()), Set.copyOf(fromMetadata.entities()));
    assertEquals(4, fromMetadata.entities().size());
    for (ShardedEntity e : fromMetadata.entities()) {
      assertEquals(ShardingModel.Origin.METADATA, fromMetadata.origin(e.entityName()), e.entityName());
      assertEquals(ShardingModel.Origin.REFLECTION, byReflection.origin(e.entityName()), e.entityName());
    }
    ShardedEntity item = fromMetadata.byClass(OrderItem.class);
    assertEquals("merchantId", item.keyAttribute());
    assertEquals(ShardKeyType.LONG, item.keyType());
    assertEquals(Merchant.class.getName(), item.group());
    assertTrue(fromMetadata.byClass(Country.class).reference());
    assertEquals("merchantId", fromMetadata.shardKeyParameter("Order.byMerchant"));
    assertNull(byReflection.shardKeyParameter("Order.byMerchant"));
  }

  @Test
  void theResourceOnTheClassPathWinsForTheEntitiesItListsAndReflectionReadsTheRest() {
    Metadata mapping = metadata(Relabeled.class, Merchant.class, PurchaseOrder.class, OrderItem.class,
        Country.class);
    ShardingModel model = ShardingModel.build(mapping, "mixed");

    ShardedEntity relabeled = model.byClass(Relabeled.class);
    assertEquals(ShardingModel.Origin.METADATA, model.origin(Relabeled.class.getName()));
    assertEquals("tenantId", relabeled.keyAttribute(), "the resource says tenantId, the annotation says id");
    assertFalse(relabeled.keyIsIdentifier());
    assertEquals("tenant", model.shardKeyParameter("Relabeled.byTenant"));

    List<String> byReflection = model.entities().stream()
        .filter(e -> model.origin(e.entityName()) == ShardingModel.Origin.REFLECTION)
        .map(ShardedEntity::simpleName).sorted().collect(Collectors.toList());
    assertEquals(List.of("Country", "Merchant", "OrderItem", "PurchaseOrder"), byReflection);
    assertEquals("id", model.byClass(Merchant.class).keyAttribute());
  }

  @Test
  void entriesFromMetadataAreValidatedWithTheSameMessages() {
    Metadata mapping = metadata(Relabeled.class);
    String type = "entity." + Relabeled.class.getName() + ".";
    ShardingConfigurationException notMapped = assertThrows(ShardingConfigurationException.class, () ->
        ShardingModel.build(mapping, "stale", new RoutingMetadata(Map.of(type + "kind", "sharded",
            type + "shardKey", "region", type + "keyType", "long"))));
    assertTrue(notMapped.getMessage().contains("[ShardKeyNotMapped] Relabeled.region carries @ShardKey but is not"
        + " a mapped persistent attribute"), notMapped.getMessage());

    ShardingConfigurationException noKey = assertThrows(ShardingConfigurationException.class, () ->
        ShardingModel.build(mapping, "stale", new RoutingMetadata(Map.of(type + "kind", "sharded"))));
    assertTrue(noKey.getMessage().contains("[ShardKeyMissing] Relabeled has no @ShardKey"), noKey.getMessage());
  }

  @Test
  void severalViaPathsReadFromMetadataEqualTheAnnotationsInTheirOrder() {
    Metadata mapping = metadata(Realm.class, Client.class, ClientScope.class, ProtocolMapper.class);
    Map<String, String> m = new HashMap<>();
    for (Class<?> type : List.of(Realm.class, Client.class, ClientScope.class, ProtocolMapper.class)) {
      String prefix = "entity." + type.getName() + ".";
      boolean root = type == Realm.class;
      m.put(prefix + "kind", "sharded");
      m.put(prefix + "shardKey", root ? "id" : "realmId");
      m.put(prefix + "shardKeyIsId", String.valueOf(root));
      m.put(prefix + "keyType", "long");
      m.put(prefix + "group", Realm.class.getName());
      if (!root) {
        m.put(prefix + "coLocatedWith", Realm.class.getName());
        m.put(prefix + "keyPath", type == ProtocolMapper.class ? "client.realm,clientScope.realm" : "realm");
      }
    }
    ShardingModel fromMetadata = ShardingModel.build(mapping, "realms", new RoutingMetadata(m));
    ShardingModel byReflection = ShardingModel.build(mapping, "realms", RoutingMetadata.empty());

    String mapper = ProtocolMapper.class.getName();
    assertEquals(ShardingModel.Origin.METADATA, fromMetadata.origin(mapper));
    List<KeyPath> paths = fromMetadata.keyPaths(mapper);
    assertEquals(List.of("client.realm", "clientScope.realm"), paths.stream().map(KeyPath::path).toList());
    assertEquals(List.of(Client.class.getName(), Realm.class.getName()), paths.get(0).hopEntities());
    assertEquals(paths, byReflection.keyPaths(mapper));
    assertEquals(List.of(), fromMetadata.keyPaths(Realm.class.getName()), "the root declares no path");
  }
}
