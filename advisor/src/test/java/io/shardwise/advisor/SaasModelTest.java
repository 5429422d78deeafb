package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.advisor.QueryVerdict.Kind;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A multi-tenant SaaS model ({@code io.shardwise.advisor.saas}), by shape only: the tenant is the
 * root, every table follows it (through associations, a column, a new backfilled column), the
 * plans are a reference table, and each query gets the verdict the processor's rule gives it.
 */
class SaasModelTest {
  static final Path TEST_CLASSES = Path.of("target/test-classes");
  static Advice advice;

  @BeforeAll
  static void advise() {
    advice = ShardKeyAdvisor.advise(List.of(TEST_CLASSES), List.of("io.shardwise.advisor.saas"), null, null);
  }

  @Test
  void theTenantIsTheRootAndEveryTableFollowsIt() {
    Proposal best = advice.best();
    assertEquals("Tenant", best.root.name, advice.text());
    assertEquals("tenant", Sources.placement(best, "Member").via());
    assertEquals("tenant", Sources.placement(best, "Project").via());
    Placement invoice = Sources.placement(best, "Invoice");
    assertEquals(Placement.Kind.CO_LOCATED, invoice.kind());
    assertEquals("tenantId", invoice.keyAttribute());
    assertTrue(invoice.keyAttributeExists(), "invoices.tenant_id is mapped as Invoice.tenantId");
    assertTrue(invoice.reasons().get(0).startsWith("its attribute tenantId (column tenant_id) already holds"),
        invoice.reasons().toString());
    Placement task = Sources.placement(best, "Task");
    assertEquals("project.tenant", task.via(), "the mandatory association wins over Task.assignee");
    assertEquals(List.of("ALTER TABLE tasks ADD COLUMN tenant_id bigint;",
        "UPDATE tasks c SET tenant_id = p.tenant_id FROM projects p WHERE p.id = c.project_id"
            + " AND c.tenant_id IS NULL;  -- in batches on a large table",
        "ALTER TABLE tasks ALTER COLUMN tenant_id SET NOT NULL;",
        "CREATE INDEX CONCURRENTLY tasks_tenant_id ON tasks (tenant_id);"), task.sql());
    Placement comment = Sources.placement(best, "Comment");
    assertEquals("task.project.tenant", comment.via());
    assertTrue(comment.sql().get(1).contains("FROM tasks p WHERE p.id = c.task_id"), comment.sql().toString());
    assertEquals(Placement.Kind.REFERENCE, Sources.placement(best, "Plan").kind());
    assertEquals(1.0, best.coverage);
  }

  @Test
  void eachQueryGetsTheVerdictOfTheProcessorsRule() {
    Map<String, Kind> verdicts = new LinkedHashMap<>();
    for (QueryVerdict verdict : advice.best().verdicts) {
      verdicts.put(verdict.query().name(), verdict.kind());
    }
    Map<String, Kind> expected = new LinkedHashMap<>();
    expected.put("Comment.ofTask", Kind.NEEDS_PREDICATE);
    expected.put("Invoice.ofTenant", Kind.SINGLE_SHARD);
    expected.put("Member.byEmail", Kind.GLOBAL_INDEX);
    expected.put("Member.ofTenant", Kind.SINGLE_SHARD);
    expected.put("Plan.all", Kind.SINGLE_SHARD);
    expected.put("Project.ofTenant", Kind.SINGLE_SHARD);
    expected.put("Project.byId", Kind.NEEDS_PREDICATE);
    expected.put("Task.ofProject", Kind.NEEDS_PREDICATE);
    expected.put("Task.openOfTenant", Kind.SINGLE_SHARD);
    expected.put("Task.countDone", Kind.SCATTER_GATHER);
    expected.put("Tenant.byName", Kind.SCATTER_GATHER);
    assertEquals(expected, verdicts, advice.text());
    assertEquals(5.0 / 11, advice.best().singleShardShare, 1e-9);

    QueryVerdict ofTask = verdict("Comment.ofTask");
    assertEquals("c.tenantId = :tenantId", ofTask.hint());
    assertTrue(ofTask.reason().startsWith("Comment c is looked up by c.task.id, the id of a Task inside Tenant's"
        + " group"), ofTask.reason());
    assertEquals("@GlobalIndex(unique = true) on Member.email", verdict("Member.byEmail").hint());
  }

  @Test
  void thePatchMarksTheScatterQueriesWhereTheyAreDeclared() {
    String patch = advice.patch();
    assertTrue(patch.contains("// io.shardwise.advisor.saas.Task — co-located\n"
        + "@CoLocated(with = Tenant.class, via = \"project.tenant\")\n"), patch);
    assertTrue(patch.contains("@ScatterGather(queries = {\"Task.countDone\"})"), patch);
    assertTrue(patch.contains("@GlobalIndex(unique = true) on email"), patch);
    assertTrue(patch.contains("// Comment: add \"c.tenantId = :tenantId\" to the WHERE clause"), patch);
  }

  @Test
  void theJsonCarriesTheSameVerdicts() {
    String json = advice.json();
    assertTrue(json.contains("\"recommended\": \"Tenant\""), json);
    assertTrue(json.contains("\"name\": \"Member.byEmail\",\n"), json);
    assertTrue(json.contains("\"verdict\": \"GLOBAL_INDEX\""), json);
    assertTrue(json.contains("\"via\": \"task.project.tenant\""), json);
  }

  private static QueryVerdict verdict(String name) {
    return advice.best().verdicts.stream().filter(v -> v.query().name().equals(name)).findFirst().orElseThrow();
  }
}
