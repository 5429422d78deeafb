package io.shardwise.queryrules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.queryrules.ShardKeyRule.Analysis;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The idioms multi-tenant applications write their queries in, on a model sharded by the tenant
 * (Realm, keyed by its id): each pins the key or does not, with the near misses beside them.
 */
class ShardKeyIdiomsTest {

  private static final TestModel MODEL = new TestModel()
      .sharded("Realm", "Realm", "id", Set.of("id", "name"), Map.of())
      .sharded("UserEntity", "Realm", "realmId", Set.of("id", "realmId", "username"),
          Map.of("realm", "Realm", "attributes", "UserAttributeEntity", "country", "Country"))
      .sharded("UserAttributeEntity", "Realm", "realmId", Set.of("id", "realmId", "name", "value"),
          Map.of("user", "UserEntity"))
      .sharded("UserRoleMapping", "Realm", "realmId", Set.of("id", "realmId", "roleId"),
          Map.of("user", "UserEntity"))
      .sharded("IdentityProviderEntity", "Realm", "realmId", Set.of("id", "realmId", "alias"),
          Map.of("realm", "Realm"))
      .sharded("OrganizationEntity", "Realm", "realmId", Set.of("id", "realmId", "name"),
          Map.of("realm", "Realm", "domains", "OrgDomainEntity"))
      .sharded("OrgDomainEntity", "Realm", "realmId", Set.of("id", "realmId", "name"),
          Map.of("organization", "OrganizationEntity"))
      .sharded("PolicyEntity", "Realm", "realmId", Set.of("id", "realmId", "name"),
          Map.of("config", "PolicyConfigEntity", "realm", "Realm"))
      .sharded("PolicyConfigEntity", "Realm", "realmId", Set.of("id", "realmId", "name", "value"),
          Map.of("policy", "PolicyEntity"))
      .sharded("Customer", "Customer", "id", Set.of("id", "email"), Map.of())
      .sharded("CustomerNote", "Customer", "customerId", Set.of("id", "customerId", "text"),
          Map.of("customer", "Customer"))
      .reference("Country", Set.of("id", "code"), Map.of());

  private final ShardKeyRule rule = new ShardKeyRule(MODEL);

  @ParameterizedTest
  @ValueSource(strings = {
      // an association to the root compared as a whole, or through its id
      "from IdentityProviderEntity ia where ia.realm = :realm",
      "from IdentityProviderEntity ia where :realm = ia.realm and ia.alias = :alias",
      "from IdentityProviderEntity ia where ia.realm in :realms",
      "from IdentityProviderEntity ia where ia.realm in (:a, :b)",
      "from IdentityProviderEntity ia where ia.realm.id = :realmId",
      "from IdentityProviderEntity ia where ia.realm.id in :realmIds",
      "from Realm r where r = :realm",
      "select a from UserAttributeEntity a where a.user.realm = :realm and a.name = :n",
      "select count(a) from UserAttributeEntity a where a.user.realm.id = :realmId",
      // a join on the foreign key that reaches a pinned entity
      "select d from OrgDomainEntity d join OrganizationEntity o on o.id = d.organization.id"
          + " where o.realmId = :realmId and d.name = :name",
      "select d from OrgDomainEntity d join OrganizationEntity o on d.organization = o"
          + " where o.realm = :realm",
      "select d from OrgDomainEntity d, OrganizationEntity o where o.id = d.organization.id"
          + " and o.realmId = :realmId",
      "select u from UserEntity u join IdentityProviderEntity ia on ia.realm.id = u.realmId"
          + " where ia.realm = :realm",
      // IN and EXISTS subqueries that pin the key, reached through the group's associations
      "delete from UserAttributeEntity attr where attr.user IN (select u from UserEntity u"
          + " where u.realmId = :realmId)",
      "delete from UserRoleMapping m where m.user.id in (select u.id from UserEntity u"
          + " where u.realmId = :realmId)",
      "delete from UserAttributeEntity attr where attr.user in (select u from UserEntity u"
          + " where u.realm = :realm)",
      "delete from UserAttributeEntity attr where attr.realmId in (select u.realmId"
          + " from UserEntity u where u.realmId = :realmId)",
      "update UserRoleMapping m set m.roleId = :role where m.user in (select a.user"
          + " from UserAttributeEntity a where a.realmId = :realmId and a.name = :n)",
      "select a from UserAttributeEntity a where exists (select 1 from UserEntity u"
          + " where u.id = a.user.id and u.realmId = :realmId)",
      "select a from UserAttributeEntity a where a.name = :n and exists (select u from"
          + " UserEntity u where u = a.user and u.realm = :realm)",
      // collection-valued paths in subqueries
      "select p from PolicyEntity p where p.realmId = :r and exists (select pec from p.config pec"
          + " where pec.name = :n)",
      "select p from PolicyEntity p where p.name = :n and exists (select pec from p.config pec"
          + " where pec.realmId = :r)",
      "select p from PolicyEntity p where p.realmId = :r and :v in (select pec.value"
          + " from p.config pec where pec.name = :n)",
      "select o from OrganizationEntity o where o.realmId = :r and exists (select 1"
          + " from o.domains d where d.name = :n)",
  })
  void pins(String hql) {
    assertResolvedAndPinned(hql);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      // an entity whose id is not its key, compared as a whole: its id says nothing of the key
      "UserAttributeEntity attr|from UserAttributeEntity attr where attr.user = :user",
      "UserAttributeEntity attr|from UserAttributeEntity attr where attr.user in :users",
      // an association outside the group, and comparisons that pin nothing
      "UserEntity u|from UserEntity u where u.country = :country",
      "IdentityProviderEntity ia|from IdentityProviderEntity ia where ia.realm <> :realm",
      "IdentityProviderEntity ia|from IdentityProviderEntity ia where ia.realm not in :realms",
      "IdentityProviderEntity ia|from IdentityProviderEntity ia where ia.realm = :realm"
          + " or ia.alias = :alias",
      // a join whose ON clause does not reach the pinned entity's identity
      "OrgDomainEntity d|select d from OrgDomainEntity d join OrganizationEntity o"
          + " on o.name = d.name where o.realmId = :realmId",
      "OrgDomainEntity d|select d from OrgDomainEntity d join OrganizationEntity o"
          + " on o.id = d.id where o.realmId = :realmId",
      // subqueries that do not pin, or do not reach the outer entity's shard
      "UserAttributeEntity attr,UserEntity u|delete from UserAttributeEntity attr where attr.user"
          + " in (select u from UserEntity u where u.username = :name)",
      "UserAttributeEntity attr,UserEntity u|delete from UserAttributeEntity attr where attr.user"
          + " in (select u from UserEntity u where u.realmId = :r or u.username = :name)",
      "UserAttributeEntity attr|delete from UserAttributeEntity attr where attr.user not in"
          + " (select u from UserEntity u where u.realmId = :realmId)",
      "UserAttributeEntity attr|delete from UserAttributeEntity attr where attr.user in"
          + " (select c from Customer c where c.id = :customer)",
      "UserEntity u|select u from UserEntity u where u.id in (select n.customerId"
          + " from CustomerNote n where n.customerId = :c)",
      "UserEntity u|select u from UserEntity u where u.country in (select c from Country c"
          + " where c.code = :code)",
      "UserAttributeEntity a|select a from UserAttributeEntity a where a.user in (select u"
          + " from UserEntity u where u.realmId = :r union select u from UserEntity u"
          + " where u.realmId = :s)",
      "UserAttributeEntity a|select a from UserAttributeEntity a where a.name = :n and exists"
          + " (select 1 from UserEntity u where u.realmId = :realmId)",
      "UserAttributeEntity a|select a from UserAttributeEntity a where not exists (select 1"
          + " from UserEntity u where u.id = a.user.id and u.realmId = :realmId)",
      // a pin that only comes back from the entity itself is no pin
      "UserAttributeEntity a,UserEntity u|select a from UserAttributeEntity a where a.user in"
          + " (select u from UserEntity u where u.realmId = a.realmId)",
      // a collection-valued path whose subquery pins nothing leaves its outer entity unpinned
      "PolicyEntity p,PolicyConfigEntity pec|select p from PolicyEntity p where exists"
          + " (select pec from p.config pec where pec.name = :n)",
  })
  void doesNotPin(String labelledQuery) {
    String[] parts = labelledQuery.split("\\|", 2);
    Analysis analysis = rule.analyze(parts[1], null);
    assertNotNull(analysis, parts[1]);
    assertTrue(analysis.unresolved().isEmpty(), parts[1] + " -> " + analysis.unresolved());
    assertEquals(List.of(parts[0].split(",")), describe(analysis), parts[1]);
  }

  /**
   * Every valid HQL form that mentions a path where an entity name could stand: none of them is an
   * unknown entity name, and each is judged.
   */
  @ParameterizedTest
  @ValueSource(strings = {
      "select p from PolicyEntity p where p.realmId = :r and exists (select pec from p.config pec"
          + " where pec.name = :n)",
      "select p from PolicyEntity p where p.realmId = :r and exists (select 1 from p.config)",
      "select p from PolicyEntity p where p.realmId = :r and exists (select 1 from p.config pec,"
          + " p.config other where pec.id <> other.id)",
      "select p from PolicyEntity p where p.realmId = :r and exists (select 1 from p.config pec"
          + " join pec.policy q where q.name = :n)",
      "select p from PolicyEntity p where p.realmId = :r and exists (select 1 from p.realm rr"
          + " where rr.name = :n)",
      "select o from OrganizationEntity o where o.realmId = :r and exists (select 1 from"
          + " o.domains d where exists (select 1 from d.organization.domains e where e.name = :n))",
      "select p from PolicyEntity p join p.config pec where p.realmId = :r",
      "select p from PolicyEntity p, in(p.config) pec where p.realmId = :r",
      "select p from PolicyEntity p left join p.realm x where p.realmId = :r",
      "select u from UserEntity u join u.realm rr where u.realmId = :r",
      "select pec from PolicyEntity p join p.config pec where p.realmId = :r",
  })
  void pathsWhereAnEntityCouldStandAreNotEntityNames(String hql) {
    assertResolvedAndPinned(hql);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "select p from PolicyEntity p where p.realmId = :r and exists (select 1 from Polcy x)",
      "select p from PolicyEntity p where p.realmId = :r and exists (select 1 from q.config x)",
      "select p from PolicyEntity p where p.realmId = :r and exists (select 1 from com.acme.Nope x)",
  })
  void aNameThatIsNeitherEntityNorPathFromAnAliasIsUnresolved(String hql) {
    Analysis analysis = rule.analyze(hql, null);
    assertEquals(1, analysis.unresolved().size(), hql + " -> " + analysis.unresolved());
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "insert into UserAttributeEntity (id, realmId, name) select a.id + 1, a.realmId, a.name"
          + " from UserAttributeEntity a where a.realmId = :r",
      "insert into UserAttributeEntity (id, realmId, name) select u.id, :r, u.username"
          + " from UserEntity u where u.realmId = :r",
      "insert into UserAttributeEntity (id, realmId, name) select u.id, u.realm.id, 'x'"
          + " from UserEntity u where u.realm = :realm",
      "insert into UserAttributeEntity (id, realmId, name) values (:id, :realmId, :name)",
      "insert into UserAttributeEntity (id, realmId, name) values (1, 7, 'a'), (2, :r, 'b')",
      "insert into Country (id, code) select 1, 'x' from Country c where c.code = 'y'",
  })
  void insertsThatWriteTheKey(String hql) {
    Analysis analysis = rule.analyze(hql, null);
    assertNotNull(analysis, hql);
    assertEquals(null, analysis.insertWithoutKey(), hql);
    assertTrue(analysis.unpinned().isEmpty(), hql + " -> " + describe(analysis));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "does not list realmId|insert into UserAttributeEntity (id, name) select u.id, u.username"
          + " from UserEntity u where u.realmId = :r",
      "neither a parameter|insert into UserAttributeEntity (id, realmId, name) select u.id, u.id,"
          + " u.username from UserEntity u where u.realmId = :r",
      "neither a parameter|insert into UserAttributeEntity (id, realmId, name) select u.id, null,"
          + " u.username from UserEntity u where u.realmId = :r",
      "neither a parameter|insert into UserAttributeEntity (id, realmId, name) select c.id,"
          + " c.id + 1, 'x' from Country c",
      "neither a parameter|insert into UserAttributeEntity (id, realmId, name) values (1, :r, 'a'),"
          + " (2, null, 'b')",
      "does not list realmId|insert into UserAttributeEntity (id, name) values (:id, :name)",
  })
  void insertsThatDoNotWriteTheKey(String labelledQuery) {
    String[] parts = labelledQuery.split("\\|", 2);
    Analysis analysis = rule.analyze(parts[1], null);
    assertNotNull(analysis, parts[1]);
    assertNotNull(analysis.insertWithoutKey(), parts[1]);
    assertEquals("UserAttributeEntity", analysis.insertWithoutKey().entity().simpleName());
    assertTrue(analysis.insertWithoutKey().problem().contains(parts[0]),
        analysis.insertWithoutKey().problem());
  }

  /**
   * A key parameter is one whose value is the key (callers route by it): an entity parameter is
   * not, though it pins the key.
   */
  @Test
  void anEntityParameterIsNoKeyParameter() {
    assertEquals(null, rule.keyParameter("from IdentityProviderEntity ia where ia.realm = :realm"));
    assertEquals(null, rule.keyParameter("from Realm r where r = :realm"));
    assertEquals("id", rule.keyParameter("from IdentityProviderEntity ia where ia.realm.id = :id"));
    assertEquals("r", rule.keyParameter("from IdentityProviderEntity ia where ia.realmId = :r"));
    assertEquals("id", rule.keyParameter("from Realm r where r.id = :id"));
  }

  private void assertResolvedAndPinned(String hql) {
    Analysis analysis = rule.analyze(hql, null);
    assertNotNull(analysis, hql);
    assertTrue(analysis.unresolved().isEmpty(), hql + " -> " + analysis.unresolved());
    assertTrue(analysis.unpinned().isEmpty(), hql + " -> " + describe(analysis));
  }

  private static List<String> describe(Analysis analysis) {
    return analysis.unpinned().stream().map(ShardKeyRule.Unpinned::describe)
        .collect(Collectors.toList());
  }
}
