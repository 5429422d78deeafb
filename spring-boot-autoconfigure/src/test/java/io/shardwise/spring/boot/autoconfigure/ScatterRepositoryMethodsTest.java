package io.shardwise.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.spring.boot.autoconfigure.scatter.ScatterOwner;
import io.shardwise.spring.boot.autoconfigure.scatter.ScatterOwnerRepository;
import io.shardwise.spring.boot.autoconfigure.scatter.ScatterTestApplication;
import io.shardwise.spring.boot.autoconfigure.scatterrefused.RefusedScatterApplication;
import io.shardwise.spring.boot.test.InShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.PageRequest;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.Slice;
import org.springframework.data.domain.Sort;
import org.springframework.transaction.annotation.Transactional;

/** {@code @ScatterGather} repository methods run on every shard, with Spring Data's semantics. */
@ShardedPostgres(shards = 2, replicas = 0, scope = ShardedPostgres.Scope.RUN)
@SpringBootTest(classes = ScatterTestApplication.class, properties = "shardwise.schema.action=update")
class ScatterRepositoryMethodsTest {
  private static final int WALK_ROWS = 30;

  @Autowired ScatterOwnerRepository owners;
  @Autowired ShardedSessions shards;

  private final Map<String, Long> idOf = new LinkedHashMap<>();

  @BeforeEach
  void seed() {
    for (String shard : shards.shardIds()) {
      // through JDBC: native SQL that pins no key is refused like HQL
      shards.forShard(shard).inTransaction(s -> s.doWork(c -> {
        try (java.sql.Statement st = c.createStatement()) {
          st.executeUpdate("delete from scatter_owner");
        }
      }));
    }
    long next = 1;
    String[] escapeNames = {"a_1", "a_2", "abc", "abd", "50%off", "50xoff", "Zed_Q", "ZedxQ"};
    for (int i = 0; i < escapeNames.length; i++) {
      next = idOn("s" + (i % 2), next);
      save(new ScatterOwner(next, escapeNames[i], "Esc"));
      idOf.put(escapeNames[i], next++);
    }
    for (int i = 0; i < WALK_ROWS; i++) {
      save(new ScatterOwner(1000 + i, "n" + (i % 4), "Walk"));
    }
  }

  private long idOn(String shard, long from) {
    long id = from;
    while (!shards.shardFor(id).equals(shard)) {
      id++;
    }
    return id;
  }

  private void save(ScatterOwner owner) {
    shards.forKey(owner.getId().longValue()).inTransaction(s -> s.persist(owner));
  }

  private static List<String> names(List<ScatterOwner> rows) {
    return rows.stream().map(ScatterOwner::getLastName).toList();
  }

  @Test
  void startingWithEscapesUnderscoreAndFindsRowsOfEveryShard(PostgresTopology pg) {
    List<ScatterOwner> found = owners.findByLastNameStartingWith("a_");
    assertThat(names(found)).containsExactly("a_1", "a_2");
    Set<Integer> ports = new HashSet<>();
    for (ScatterOwner owner : found) {
      ports.add(shards.forKey(owner.getId().longValue()).fromSession(s -> ((Number) s.createNativeQuery(
          "select inet_server_port() from scatter_owner where id = :id", Object.class)
          .setParameter("id", owner.getId()).getSingleResult()).intValue()));
    }
    assertThat(ports).containsExactlyInAnyOrder(pg.shard(0).primary().port(), pg.shard(1).primary().port());
  }

  @Test
  void containingAndEndingWithEscapePercentAndUnderscore() {
    assertThat(names(owners.findByLastNameContaining("%"))).containsExactly("50%off");
    assertThat(names(owners.findByLastNameEndingWithIgnoreCase("_q"))).containsExactly("Zed_Q");
    assertThat(owners.findByLastNameStartingWith("a_", PageRequest.of(0, 10)).getTotalElements()).isEqualTo(2);
  }

  @Test
  void sortedAndUnsortedPagesWalkEveryRowExactlyOnce() {
    List<ScatterOwner> sorted = walk(PageRequest.of(0, 7, Sort.by("lastName")));
    assertThat(sorted).hasSize(WALK_ROWS);
    assertThat(sorted.stream().map(ScatterOwner::getId).distinct().count()).isEqualTo(WALK_ROWS);
    assertThat(names(sorted)).isSorted();
    List<ScatterOwner> unsorted = walk(PageRequest.of(0, 4));
    assertThat(unsorted.stream().map(ScatterOwner::getId).toList())
        .containsExactlyElementsOf(java.util.stream.LongStream.range(1000, 1000 + WALK_ROWS).boxed().toList());
    assertThat(walk(PageRequest.of(0, 4)).stream().map(ScatterOwner::getId).toList())
        .isEqualTo(unsorted.stream().map(ScatterOwner::getId).toList());
  }

  private List<ScatterOwner> walk(Pageable first) {
    List<ScatterOwner> all = new ArrayList<>();
    Pageable pageable = first;
    while (true) {
      Page<ScatterOwner> page = owners.findByCity("Walk", pageable);
      assertThat(page.getTotalElements()).isEqualTo(WALK_ROWS);
      all.addAll(page.getContent());
      if (!page.hasNext()) {
        return all;
      }
      pageable = page.nextPageable();
    }
  }

  @Test
  void slicesStreamsSingleResultsCountsAndExists() {
    Set<Long> seen = new HashSet<>();
    Slice<ScatterOwner> slice = owners.findSliceByCity("Walk", PageRequest.of(0, 8));
    seen.addAll(slice.map(ScatterOwner::getId).getContent());
    while (slice.hasNext()) {
      slice = owners.findSliceByCity("Walk", slice.nextPageable());
      slice.forEach(o -> assertThat(seen.add(o.getId())).isTrue());
    }
    assertThat(seen).hasSize(WALK_ROWS);
    try (var stream = owners.streamByCityOrderByLastNameDesc("Walk")) {
      assertThat(stream.map(ScatterOwner::getLastName).toList()).hasSize(WALK_ROWS).first().isEqualTo("n3");
    }
    assertThat(owners.findByLastName("abd")).map(ScatterOwner::getId).contains(idOf.get("abd"));
    assertThat(owners.findByLastName("nobody")).isEmpty();
    assertThat(owners.findFirstByCityOrderByLastNameAsc("Esc").getLastName()).isEqualTo("50%off");
    assertThat(owners.countByCity("Walk")).isEqualTo(WALK_ROWS);
    assertThat(owners.existsByLastName("a_2")).isTrue();
    assertThat(owners.existsByLastName("a_")).isFalse();
  }

  @Test
  void declaredQueriesPageAndProject() {
    Page<ScatterOwner> page = owners.inCityStartingWith("Walk", "n1", PageRequest.of(0, 3));
    assertThat(page.getTotalElements()).isEqualTo(WALK_ROWS / 4 + (WALK_ROWS % 4 > 1 ? 1 : 0));
    assertThat(page.getContent()).hasSize(3).allMatch(o -> o.getLastName().equals("n1"));
    assertThat(owners.lastNamesIn("Esc")).containsExactly("50%off", "50xoff", "Zed_Q", "ZedxQ", "a_1", "a_2", "abc", "abd");
  }

  @Test
  @Transactional
  @InShard(shard = "s1")
  void insideTransactionSeesItsOwnUncommittedWrite() {
    long id = idOn("s1", 5000);
    owners.save(new ScatterOwner(id, "tx_new", "Tx"));
    assertThat(owners.findByLastNameStartingWith("tx_")).extracting(ScatterOwner::getId).containsExactly(id);
    assertThat(owners.countByCity("Tx")).isEqualTo(1);
  }

  @Test
  void aModifyingScatterMethodStopsTheApplicationNamingIt(PostgresTopology pg) {
    Map<String, Object> settings = StandaloneSettings.of(pg);
    Exception e = assertThrows(Exception.class,
        () -> new SpringApplicationBuilder(RefusedScatterApplication.class).properties(settings).run().close());
    assertThat(NestedExceptionUtils.getMostSpecificCause(e).getMessage())
        .contains("ModifyingScatterRepository.moveEveryone").contains("@Modifying");
  }
}
