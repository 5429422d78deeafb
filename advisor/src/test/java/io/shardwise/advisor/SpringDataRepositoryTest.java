package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.shardwise.advisor.QueryVerdict.Kind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A Spring Data repository of the SaaS model: its derived finders and {@code @Query} strings are judged too. */
class SpringDataRepositoryTest {
  @Test
  void derivedFindersAndQueryStringsGetVerdicts() {
    Advice advice = ShardKeyAdvisor.advise(List.of(SaasModelTest.TEST_CLASSES),
        List.of("io.shardwise.advisor.saas", "io.shardwise.advisor.saasrepo"), null, null);
    assertEquals("Tenant", advice.bestRoot());
    Map<String, String> texts = new LinkedHashMap<>();
    Map<String, Kind> verdicts = new LinkedHashMap<>();
    for (QueryVerdict verdict : advice.best().verdicts) {
      if (verdict.query().name().startsWith("TaskRepository.")) {
        texts.put(verdict.query().name(), verdict.query().text());
        verdicts.put(verdict.query().name(), verdict.kind());
      }
    }
    assertEquals("select e from Task e where e.project.id = :project_id", texts.get("TaskRepository.findByProjectId"));
    assertEquals("select count(e) from Task e where e.done = :done", texts.get("TaskRepository.countByDone"));
    assertEquals("select e from Task e where e.assignee.email = :assignee_email",
        texts.get("TaskRepository.findByAssigneeEmail"));
    assertEquals(Kind.NEEDS_PREDICATE, verdicts.get("TaskRepository.findByProjectId"));
    assertEquals(Kind.SCATTER_GATHER, verdicts.get("TaskRepository.countByDone"));
    assertEquals(Kind.SCATTER_GATHER, verdicts.get("TaskRepository.findByAssigneeEmail"));
    assertEquals(Kind.SINGLE_SHARD, verdicts.get("TaskRepository.ofTenant"),
        "t.project.tenant.id: a path through the group's associations to the root's id pins the key");
    assertEquals(Kind.NOT_JUDGED, verdicts.get("TaskRepository.everyRow"));
    assertEquals(5, verdicts.size(), verdicts.toString());
  }
}
