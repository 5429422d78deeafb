package io.shardwise.queryrules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.queryrules.NativeSqlRule.Analysis;
import io.shardwise.queryrules.NativeSqlRule.KeyPin;
import io.shardwise.queryrules.TableModel.MappedTable;
import io.shardwise.queryrules.TableModel.ParentLink;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Native SQL as multi-tenant applications write it, on tables sharded by the realm: each statement
 * pins the key column or does not, with the near misses beside the ones that pass.
 */
class NativeSqlRuleTest {

  private static final TestModel ENTITIES = new TestModel()
      .sharded("Realm", "Realm", "id", Set.of("id"), Map.of())
      .sharded("UserEntity", "Realm", "realmId", Set.of("id", "realmId"), Map.of())
      .sharded("Credential", "Realm", "realmId", Set.of("id", "realmId"), Map.of())
      .sharded("UserAttribute", "Realm", "realmId", Set.of("id", "realmId"), Map.of("user", "UserEntity"))
      .sharded("Merchant", "Merchant", "id", Set.of("id"), Map.of())
      .sharded("PurchaseOrder", "Merchant", "merchantId", Set.of("id", "merchantId"), Map.of())
      .reference("Country", Set.of("id", "code"), Map.of());

  private static final Map<String, MappedTable> TABLES = Map.of(
      "realm", new MappedTable(ENTITIES.entity("Realm"), List.of("id")),
      "user_entity", new MappedTable(ENTITIES.entity("UserEntity"), List.of("realm_id")),
      "credential", new MappedTable(ENTITIES.entity("Credential"), List.of("realm_id")),
      // @CoLocated(with = Realm.class, via = "user.realm"), user joined on USER_ID
      "user_attribute", new MappedTable(ENTITIES.entity("UserAttribute"), List.of("realm_id"),
          new ParentLink(List.of("user_id"), ENTITIES.entity("UserEntity"), List.of("id"))),
      "merchant", new MappedTable(ENTITIES.entity("Merchant"), List.of("id")),
      "purchase_order", new MappedTable(ENTITIES.entity("PurchaseOrder"), List.of("merchant_id")),
      "country", new MappedTable(ENTITIES.entity("Country"), List.of()));

  private final NativeSqlRule rule = new NativeSqlRule(TABLES::get);

  @ParameterizedTest
  @ValueSource(strings = {
      "select * from user_entity where realm_id = :realm",
      "select * from user_entity u where u.realm_id = ? and u.username = ?",
      "select * from user_entity u where u.realm_id = ?1",
      "select * from user_entity u where u.realm_id in (:realms)",
      "select * from user_entity u where u.realm_id in ('r1', 'r2')",
      "select * from user_entity u where :realm = u.realm_id",
      "select * from \"user_entity\" u where u.\"REALM_ID\" = :realm",
      "select * from public.user_entity u where u.realm_id = :realm::varchar",
      "select * from user_entity u where u.realm_id = cast(:realm as varchar) limit 10",
      "select * from realm where id = :id",
      // co-located through the key column, in ON or WHERE
      "select c.* from credential c join user_entity u on u.realm_id = c.realm_id where u.realm_id = :r",
      "select c.* from credential c, user_entity u where c.user_id = u.id and c.realm_id = u.realm_id"
          + " and u.realm_id = :r",
      "select c.* from credential c join user_entity u on u.id = c.user_id and u.realm_id = c.realm_id"
          + " join realm r on r.id = u.realm_id where r.id = :r",
      // OR pins what both branches pin
      "select * from user_entity u where (u.realm_id = :a and u.email = :e) or (u.realm_id = :a and u.username = :n)",
      "select * from user_entity u where u.realm_id = :a or u.realm_id = :b",
      // reference tables need nothing
      "select * from country where code = :code",
      "select u.* from user_entity u join country c on c.id = u.country_id where u.realm_id = :r",
      // subqueries: correlated through the key, lending through IN, on their own
      "select * from user_entity u where u.realm_id = :r and exists (select 1 from credential c"
          + " where c.user_id = u.id and c.realm_id = u.realm_id)",
      "delete from credential where realm_id in (select u.realm_id from user_entity u where u.realm_id = :r)",
      "select u.id, (select count(*) from credential c where c.realm_id = u.realm_id and c.user_id = u.id)"
          + " from user_entity u where u.realm_id = :r",
      "with mine as (select * from user_entity where realm_id = :r) select * from mine",
      "select * from (select * from user_entity where realm_id = :r) u where u.enabled",
      "select id from user_entity where realm_id = :r union all select id from credential where realm_id = :r",
      // statements that write
      "update user_entity set email = :e where realm_id = :r and id = :id",
      "delete from credential c using user_entity u where c.user_id = u.id and c.realm_id = u.realm_id"
          + " and u.realm_id = :r",
      "insert into credential (id, realm_id, user_id) values (:id, :realm, :user)",
      "insert into credential (id, realm_id, user_id) values (:id, :realm, :user)"
          + " on conflict (id) do update set user_id = excluded.user_id",
      "insert into credential (id, realm_id, user_id) select :id, u.realm_id, u.id from user_entity u"
          + " where u.realm_id = :r and u.username = :n",
      "select * from user_entity u where u.realm_id = :r for update skip locked",
      // a left join's ON pins the table it joins, and carries a key equality into it
      "select u.*, c.type from user_entity u left join credential c on c.realm_id = u.realm_id"
          + " where u.realm_id = :r",
      "select u.*, c.type from user_entity u left outer join credential c on c.realm_id = :r and c.user_id = u.id"
          + " where u.realm_id = :r",
      // a child joined to its pinned co-location parent on the foreign key of its via path
      "select u.id from user_entity u join user_attribute a on a.user_id = u.id where u.realm_id = :r",
      "select a.* from user_attribute a inner join user_entity u on u.id = a.user_id and u.realm_id = ?",
      "select a.* from user_attribute a join user_entity u on u.id = a.user_id join realm r on r.id = u.realm_id"
          + " where r.id = :r",
      "select a.* from user_attribute a, user_entity u where a.user_id = u.id and u.realm_id in (:a, :b)",
      "select a.name from user_attribute a join user_entity u on a.user_id = u.id"
          + " where (u.realm_id = :r and a.name = :n) or (u.realm_id = :r and a.value = :v)",
      "delete from user_attribute where user_id in (select id from user_entity where realm_id = ?)",
      "delete from user_attribute a using user_entity u where a.user_id = u.id and u.realm_id = :r",
      "update user_attribute a set value = :v from user_entity u where a.user_id = u.id and u.realm_id = :r",
      // nothing sharded at all
      "select nextval('hibernate_sequence')",
  })
  void pins(String sql) {
    Analysis analysis = rule.analyze(sql);
    assertNull(analysis.unreadable(), sql);
    assertEquals(List.of(), analysis.unpinned().stream().map(u -> u.describe()).toList(), sql);
    assertNull(analysis.insertWithoutKey(), sql);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select * from user_entity",
      "select * from user_entity u where u.username = :n",
      "select * from user_entity u where u.realm_id is not null",
      "select * from user_entity u where u.realm_id <> :r",
      "select * from user_entity u where u.realm_id not in (:r)",
      "select * from user_entity u where u.realm_id = null",
      // the key column of another table
      "select u.* from user_entity u join purchase_order o on o.merchant_id = :m where o.merchant_id = :m",
      "select u.* from user_entity u, country c where c.realm_id = :r",
      // OR with a predicate that does not pin
      "select * from user_entity u where u.realm_id = :r or u.username = :n",
      "select * from user_entity u where u.realm_id = :r and (u.id = :i or u.email = :e) or u.enabled",
      // the key compared with another column, not a value
      "select * from user_entity u where u.realm_id = u.username",
      "select * from user_entity u where u.realm_id = u.realm_id",
      "select c.* from credential c join user_entity u on u.id = c.user_id where u.realm_id = :r",
      // a key equality across co-location groups carries no pin
      "select * from purchase_order o join user_entity u on u.realm_id = o.merchant_id where u.realm_id = :r",
      // subqueries that leave a sharded table unpinned
      "select * from user_entity u where u.realm_id = :r and u.id in (select c.user_id from credential c)",
      "delete from credential where realm_id in (select u.realm_id from user_entity u where u.username = :n)",
      "delete from credential where realm_id in (select o.merchant_id from purchase_order o where o.merchant_id = :m)",
      "select u.id, (select count(*) from credential c) from user_entity u where u.realm_id = :r",
      "select case when exists (select 1 from credential) then 1 end from user_entity u where u.realm_id = :r",
      "select * from user_entity where realm_id = :r union select * from user_entity where username = :n",
      "select * from (select * from user_entity) u where u.realm_id = :r",
      "update user_entity set email = :e where id = :id",
      "delete from credential",
      // near misses of the foreign key join: another column, the wrong way, outer, another table
      "select a.* from user_attribute a join user_entity u on u.username = a.user_id where u.realm_id = :r",
      "select a.* from user_attribute a join user_entity u on u.id = a.owner_id where u.realm_id = :r",
      "select a.* from user_attribute a join user_entity u on u.id = a.id where u.realm_id = :r",
      "select u.* from user_entity u join user_attribute a on a.user_id = u.id where a.realm_id = :r",
      "select a.* from user_attribute a left join user_entity u on u.id = a.user_id and u.realm_id = :r",
      "select a.* from user_entity u right join user_attribute a on a.user_id = u.id and u.realm_id = :r",
      "select a.* from user_attribute a join credential c on c.id = a.user_id where c.realm_id = :r",
      "select a.* from user_attribute a join merchant m on m.id = a.user_id where m.id = :m",
      "select a.* from user_attribute a join user_entity u on a.user_id = u.id where u.realm_id = :r or u.email = :e",
      "select a.* from user_attribute a join user_entity u on a.user_id = u.id and u.realm_id = :r"
          + " join user_attribute b on b.id = a.id",
      "delete from user_attribute where user_id in (select id from user_entity where username = :n)",
      "delete from user_attribute where user_id in (select realm_id from user_entity where realm_id = :r)",
      "delete from user_attribute where user_id not in (select id from user_entity where realm_id = :r)",
      "delete from user_attribute where user_id in (select c.id from credential c where c.realm_id = :r)",
      "delete from credential where user_id in (select id from user_entity where realm_id = :r)",
      // an outer join's ON filters the joined side only: the preserved side stays unpinned
      "select c.* from credential c left join user_entity u on u.realm_id = c.realm_id and u.realm_id = :r",
      "select c.* from credential c left join user_entity u on u.realm_id = :r and c.realm_id = :r",
      "select c.* from user_entity u right join credential c on u.realm_id = c.realm_id and u.realm_id = :r",
      "select c.* from credential c full join user_entity u on u.realm_id = c.realm_id where u.realm_id = :r",
  })
  void lacks(String sql) {
    Analysis analysis = rule.analyze(sql);
    assertNull(analysis.unreadable(), sql);
    assertFalse(analysis.unpinned().isEmpty(), sql);
  }

  @Test
  void namesEachUnpinnedTableWithItsAlias() {
    Analysis analysis = rule.analyze(
        "select * from user_entity u join credential c on c.user_id = u.id where u.username = :n");
    assertEquals(List.of("user_entity u", "credential c"),
        analysis.unpinned().stream().map(NativeSqlRule.UnpinnedTable::describe).toList());
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "insert into credential (id, user_id) values (:id, :user)",
      "insert into credential values (:id, :realm, :user)",
      "insert into credential (id, realm_id) values (:id, lower(:realm))",
      "insert into credential (id, realm_id, user_id) select :id, u.username, u.id from user_entity u where u.realm_id = :r",
  })
  void insertsWithoutKey(String sql) {
    assertNotNull(rule.analyze(sql).insertWithoutKey(), sql);
  }

  @Test
  void keyPinsAreTheValuesTheRuntimeChecks() {
    Analysis analysis = rule.analyze("select * from user_entity u join credential c on c.realm_id = u.realm_id"
        + " where u.realm_id in (:a, 'lit', ?, -7) and c.realm_id = ?3");
    assertEquals(List.of("a", "null", "null", "null", "null"),
        analysis.keyPins().stream().map(p -> String.valueOf(p.parameterName())).toList());
    assertEquals("lit", analysis.keyPins().get(1).literal());
    assertEquals(-7L, analysis.keyPins().get(3).literal());
    assertEquals(3, analysis.keyPins().get(4).position());
    assertTrue(analysis.keyPins().stream().allMatch(p -> p.table().entity().simpleName().equals("UserEntity")
        || p.table().entity().simpleName().equals("Credential")));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select {u.*} from user_entity u where u.realm_id = :r",
      "select * from {h-schema}user_entity where realm_id = :r",
      "create table t (id bigint)",
      "select * from user_entity where realm_id = :r and",
  })
  void unreadableIsNamedNotJudged(String sql) {
    Analysis analysis = rule.analyze(sql);
    assertNotNull(analysis.unreadable(), sql);
    assertTrue(analysis.unpinned().isEmpty());
  }

  @Test
  void tablesNoEntityIsStoredInAreListed() {
    Analysis analysis = rule.analyze("select * from user_role_mapping m where m.user_id = :u");
    assertEquals(List.of("user_role_mapping"), analysis.unknownTables());
    assertFalse(analysis.pinsAny());
    Set<String> named = rule.analyze("with x as (select 1) select * from x").unknownTables().stream()
        .collect(Collectors.toSet());
    assertEquals(Set.of(), named);
  }

  @Test
  void aForeignKeyJoinPinsTheChildWithTheParentsValues() {
    Analysis analysis = rule.analyze("select a.* from user_attribute a join user_entity u on a.user_id = u.id"
        + " where u.realm_id = :r");
    assertEquals(List.of(), analysis.unpinned());
    assertEquals(List.of("r"), analysis.keyPins().stream().map(KeyPin::parameterName).toList());
    assertEquals("UserEntity", analysis.keyPins().get(0).table().entity().simpleName());
  }

  @Test
  void keyPinOfAnInsertIsItsValue() {
    KeyPin pin = rule.analyze("insert into credential (id, realm_id) values (:id, :realm)").keyPins().get(0);
    assertEquals("realm", pin.parameterName());
  }
}
