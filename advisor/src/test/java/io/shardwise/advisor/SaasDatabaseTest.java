package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.advisor.saas.Comment;
import io.shardwise.advisor.saas.Invoice;
import io.shardwise.advisor.saas.Member;
import io.shardwise.advisor.saas.Plan;
import io.shardwise.advisor.saas.Project;
import io.shardwise.advisor.saas.Task;
import io.shardwise.advisor.saas.Tenant;
import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The SaaS model on a real PostgreSQL database holding skewed data: tenant 7 owns 30 % of the
 * members, projects and invoices. The application's queries run through plain Hibernate first, so
 * {@code pg_stat_statements} counts them; then the advisor reads the catalog (read-only) and must
 * pick the tenant, name tenant 7 as the hot key with its share, weigh the queries by their calls,
 * keep the plans as a reference table by their size and writes, and change no row.
 */
@ShardedPostgres(shards = 1, settings = "shared_preload_libraries = 'pg_stat_statements'")
class SaasDatabaseTest {
  private static final String TENANT = "CASE WHEN g % 10 < 3 THEN 7 WHEN 1 + g % 49 = 7 THEN 50 ELSE 1 + g % 49 END";

  @Test
  void picksTheTenantNamesTheHotTenantAndWeighsTheQueriesByTheirCalls(@Node(shard = 0) String url)
      throws Exception {
    Sources.sql(url, "CREATE EXTENSION pg_stat_statements",
        "CREATE TABLE plans (id integer PRIMARY KEY, name text)",
        "CREATE TABLE tenants (id bigint PRIMARY KEY, name text, plan_id integer REFERENCES plans)",
        "CREATE TABLE members (id bigint PRIMARY KEY, email text UNIQUE, tenant_id bigint REFERENCES tenants)",
        "CREATE TABLE projects (id bigint PRIMARY KEY, title text, tenant_id bigint REFERENCES tenants)",
        "CREATE TABLE tasks (id bigint PRIMARY KEY, done boolean NOT NULL, project_id bigint NOT NULL"
            + " REFERENCES projects, assignee_id bigint REFERENCES members)",
        "CREATE TABLE comments (id bigint PRIMARY KEY, body text, task_id bigint REFERENCES tasks)",
        "CREATE TABLE invoices (id bigint PRIMARY KEY, tenant_id bigint REFERENCES tenants, amount numeric)",
        "INSERT INTO plans VALUES (1, 'free'), (2, 'team'), (3, 'enterprise')",
        "INSERT INTO tenants SELECT g, 'tenant ' || g, 1 + g % 3 FROM generate_series(1, 50) g",
        "INSERT INTO members SELECT g, 'm' || g || '@example.com', " + TENANT + " FROM generate_series(1, 3000) g",
        "INSERT INTO projects SELECT g, 'project ' || g, " + TENANT + " FROM generate_series(1, 3000) g",
        "INSERT INTO invoices SELECT g, " + TENANT + ", g FROM generate_series(1, 6000) g",
        "INSERT INTO tasks SELECT g, g % 4 = 0, 1 + g % 3000, 1 + g % 3000 FROM generate_series(1, 20000) g",
        "INSERT INTO comments SELECT g, 'c', 1 + g % 20000 FROM generate_series(1, 20000) g",
        "ANALYZE",
        "SELECT pg_stat_statements_reset()");
    runTheApplicationsQueries(url);
    long writesBefore = Sources.writes(url);

    Properties login = new Properties();
    login.setProperty("user", "postgres");
    Advice advice = ShardKeyAdvisor.advise(List.of(SaasModelTest.TEST_CLASSES), List.of("io.shardwise.advisor.saas"),
        url, login);
    String report = advice.text();
    System.out.println(report);
    Proposal best = advice.best();

    assertEquals("Tenant", best.root.name, report);
    assertEquals(5, advice.statistics.catalogQueries(), "tables, foreign keys, pg_stats, extension, statements");
    assertEquals(writesBefore, Sources.writes(url), "the advisor wrote nothing");

    Placement plan = Sources.placement(best, "Plan");
    assertEquals(Placement.Kind.REFERENCE, plan.kind());
    assertTrue(plan.reasons().get(0).endsWith("; 3 rows, 0 updates and deletes since the statistics were reset:"
        + " small and read-mostly, so every shard holds a copy"), plan.reasons().toString());

    Balance balance = best.balance;
    assertEquals(List.of("tenants.id", "invoices.tenant_id", "members.tenant_id", "projects.tenant_id"),
        balance.sources());
    assertEquals(1, balance.hotKeys().size(), report);
    Balance.HotKey hot = balance.hotKeys().get(0);
    assertEquals("7", hot.value());
    assertEquals(0.30 * 12_000 / 12_050, hot.share(), 0.01, "30 % of the rows of the tables that hold the key");
    assertTrue(hot.advice().contains("shardwise.directory.7 = <shard>"), hot.advice());
    assertTrue(balance.largestBucketShare() >= hot.share());
    assertTrue(balance.largestShardShare().get(16) >= hot.share(), "one key never splits");
    assertTrue(balance.largestShardShare().get(2) >= 0.5, "the shard of tenant 7 holds its half and tenant 7");
    assertTrue(report.contains("hot: key 7 holds 29.9% of the rows"), report);

    assertTrue(advice.callsWeighted);
    assertEquals(40, Sources.weight(best, "Project.ofTenant"));
    assertEquals(20, Sources.weight(best, "Invoice.ofTenant"));
    assertEquals(100, Sources.weight(best, "Task.ofProject"));
    assertEquals(30, Sources.weight(best, "Member.byEmail"));
    assertEquals(10, Sources.weight(best, "Tenant.byName"));
    assertEquals(0, Sources.weight(best, "Comment.ofTask"), "never ran");
    assertEquals(60.0 / 200, best.singleShardShare, 1e-9, report);
    assertEquals(160.0 / 200, best.singleShardOnceFixedShare(), 1e-9, "Task.ofProject's 100 calls need one predicate");
    Proposal project = advice.ranked.stream().filter(p -> p.root.name.equals("Project")).findFirst().orElseThrow();
    assertEquals(100.0 / 200, project.singleShardShare, 1e-9, "Task.ofProject runs on one shard under Project");
    assertTrue(project.score() < best.score(), "but Project leaves tenants, members and invoices without a place");
  }

  /** What the application does before it is sharded: its named queries, through plain Hibernate. */
  private static void runTheApplicationsQueries(String url) {
    Configuration configuration = new Configuration();
    for (Class<?> entity : List.of(Plan.class, Tenant.class, Member.class, Project.class, Task.class,
        Comment.class, Invoice.class)) {
      configuration.addAnnotatedClass(entity);
    }
    configuration.setProperty("hibernate.connection.url", url);
    configuration.setProperty("hibernate.connection.username", "postgres");
    try (SessionFactory factory = configuration.buildSessionFactory()) {
      factory.inTransaction(session -> {
        for (int i = 0; i < 40; i++) {
          session.createNamedQuery("Project.ofTenant", Project.class).setParameter("tenantId", 1L + i).getResultList();
        }
        for (int i = 0; i < 20; i++) {
          session.createNamedQuery("Invoice.ofTenant", Invoice.class).setParameter("tenantId", 1L + i).getResultList();
        }
        for (int i = 0; i < 100; i++) {
          session.createNamedQuery("Task.ofProject", Task.class).setParameter("projectId", 1L + i).getResultList();
        }
        for (int i = 0; i < 30; i++) {
          session.createNamedQuery("Member.byEmail", Member.class).setParameter("email", "m" + i + "@example.com")
              .getResultList();
        }
        for (int i = 0; i < 10; i++) {
          session.createNamedQuery("Tenant.byName", Tenant.class).setParameter("name", "tenant " + i).getResultList();
        }
      });
    }
  }
}
