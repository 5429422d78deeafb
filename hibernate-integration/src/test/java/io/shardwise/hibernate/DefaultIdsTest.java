package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.defaultids.Invoice;
import io.shardwise.hibernate.defaultids.Pet;
import io.shardwise.hibernate.defaultids.Vet;
import io.shardwise.hibernate.defaultids.Visit;
import io.shardwise.hibernate.id.SnowflakeGenerator;
import io.shardwise.hibernate.id.SnowflakeLayout;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.SessionFactory;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.junit.jupiter.api.Test;

/**
 * {@code shardwise.ids.default = snowflake}: the {@code @Id} declared once on a {@code @MappedSuperclass}
 * gets Snowflake ids in every sharded entity, an entity with its own generator keeps it, and an
 * Integer id is refused at start-up.
 */
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class DefaultIdsTest {

  static Shardwise.Builder builder(PostgresTopology pg, Class<?>... entities) {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null).schema("create")
        .property("shardwise.snowflake.worker_id", "9").entities(entities);
    for (PostgresShard shard : pg.shards()) {
      b.shard("s" + shard.index(), shard.primary().jdbcUrl());
    }
    return b;
  }

  @Test
  void theMappedSuperclassIdGetsSnowflakeIdsAndOwnGeneratorsStay(PostgresTopology pg) throws SQLException {
    List<Long> snowflakes = new ArrayList<>();
    List<Long> sequenced = new ArrayList<>();
    try (SessionFactory sf = builder(pg, Pet.class, Visit.class, Invoice.class)
        .property("shardwise.ids.default", "snowflake").buildSessionFactory()) {
      var metamodel = sf.unwrap(SessionFactoryImplementor.class).getMappingMetamodel();
      assertTrue(metamodel.getEntityDescriptor(Pet.class).getGenerator() instanceof SnowflakeGenerator);
      assertTrue(metamodel.getEntityDescriptor(Visit.class).getGenerator() instanceof SnowflakeGenerator);
      assertTrue(!(metamodel.getEntityDescriptor(Invoice.class).getGenerator() instanceof SnowflakeGenerator));
      ShardedSessions shards = ShardedSessions.of(sf);
      for (long owner = 1; owner <= 6; owner++) {
        long o = owner;
        shards.forKey(owner).inTransaction(session -> {
          Pet pet = new Pet(o);
          Visit visit = new Visit(o);
          Invoice invoice = new Invoice(o);
          session.persist(pet);
          session.persist(visit);
          session.persist(invoice);
          snowflakes.add(pet.getId());
          snowflakes.add(visit.getId());
          sequenced.add(invoice.getId());
        });
      }
    }
    for (long id : snowflakes) {
      assertEquals(9, SnowflakeLayout.DEFAULT.decode(id).worker(), "a Snowflake id of worker 9: " + id);
    }
    assertEquals(12, snowflakes.stream().distinct().count());
    for (long id : sequenced) {
      assertTrue(id < 1_000_000, "the invoice's own sequence made " + id);
    }
    int stored = 0;
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT id FROM default_id_pet UNION ALL SELECT id FROM default_id_visit")) {
        while (rs.next()) {
          assertTrue(snowflakes.contains(rs.getLong(1)));
          stored++;
        }
      }
    }
    assertEquals(12, stored);
  }

  @Test
  void anIntegerIdUnderTheSettingIsRefusedAtStartup(PostgresTopology pg) {
    Throwable failure = assertThrows(RuntimeException.class, () -> builder(pg, Vet.class)
        .property("shardwise.ids.default", "snowflake").buildSessionFactory().close());
    while (!(failure instanceof ShardingConfigurationException) && failure.getCause() != null) {
      failure = failure.getCause();
    }
    assertTrue(failure instanceof ShardingConfigurationException, String.valueOf(failure));
    assertTrue(failure.getMessage().contains("the ids [Vet.id (Integer)] are too small for Snowflake ids"),
        failure.getMessage());
  }

  @Test
  void withoutTheSettingIdsStayAsMapped(PostgresTopology pg) {
    try (SessionFactory sf = builder(pg, Pet.class, Visit.class).buildSessionFactory()) {
      assertTrue(!(sf.unwrap(SessionFactoryImplementor.class).getMappingMetamodel().getEntityDescriptor(Pet.class)
          .getGenerator() instanceof SnowflakeGenerator), "assigned, as mapped");
    }
  }
}
