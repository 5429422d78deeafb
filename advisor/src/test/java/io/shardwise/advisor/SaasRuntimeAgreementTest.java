package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardwise.advisor.JpaModel.DeclaredQuery;
import io.shardwise.hibernate.ShardKeyMissingException;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.ToolProvider;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The advice against the runtime: the SaaS model with the annotations the advice proposes
 * ({@code src/test/resources/saas-annotated}, compiled here with shardwise-processor, which writes
 * the routing metadata) runs on two real shards, and every query of the model is sent as an
 * application sends it — in a session for tenant 7's shard; when the runtime's query guard refuses
 * it there for want of the key, as a scatter-gather query. Shardwise's own meters say how each one
 * ran: a single-shard query moves the statement timer of exactly one shard and starts no scatter;
 * a scatter-gather one fans out to both. The queries the runtime ran on one shard must be exactly
 * those the advice called single-shard, so the share the report prints is the share the runtime
 * sees.
 */
@ShardedPostgres(shards = 2)
class SaasRuntimeAgreementTest {
  private static final long TENANT = 7L;
  private static final Pattern PARAMETER = Pattern.compile(":(\\w+)");
  private static final String ANNOTATED = "io.shardwise.advisor.saasannotated";

  @TempDir
  Path work;

  @Test
  void theRuntimeRunsOnOneShardExactlyTheQueriesTheAdviceCalledSingleShard(@Node(shard = 0) String s0,
      @Node(shard = 1) String s1) throws Exception {
    Advice advice = ShardKeyAdvisor.advise(List.of(SaasModelTest.TEST_CLASSES), List.of("io.shardwise.advisor.saas"),
        null, null);
    Proposal proposal = advice.best();
    assertEquals("Tenant", proposal.root.name);
    Map<String, Boolean> advised = new TreeMap<>();
    proposal.verdicts.forEach(v -> advised.put(v.query().name(),
        v.kind() == QueryVerdict.Kind.SINGLE_SHARD));

    Path classes = compileTheAnnotatedModel();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Map<String, Boolean> observed = new TreeMap<>();
    Thread thread = Thread.currentThread();
    ClassLoader before = thread.getContextClassLoader();
    try (URLClassLoader annotated = new URLClassLoader(new URL[] {classes.toUri().toURL()}, before)) {
      thread.setContextClassLoader(annotated);
      List<Class<?>> entities = new ArrayList<>();
      for (String name : List.of("Plan", "Tenant", "Member", "Project", "Task", "Comment", "Invoice")) {
        entities.add(annotated.loadClass(ANNOTATED + "." + name));
      }
      try (SessionFactory factory = Shardwise.configure().shard("s0", s0).shard("s1", s1)
          .credentials("postgres", null).schema("create").meterRegistry(meters)
          .entities(entities.toArray(Class<?>[]::new)).buildSessionFactory()) {
        ShardedSessions shards = ShardedSessions.of(factory);
        String tenantShard = shards.shardFor(TENANT);
        for (DeclaredQuery query : advice.model.queries()) {
          observed.put(query.name(), runsOnOneShard(shards, meters, tenantShard, query));
        }
      }
    } finally {
      thread.setContextClassLoader(before);
    }

    System.out.println("single-shard (true) or scattered (false), as the runtime ran them: " + observed);
    assertEquals(advised, observed, "true: one shard; false: refused there, then scattered");
    long single = observed.values().stream().filter(b -> b).count();
    assertEquals(proposal.singleShardShare, (double) single / observed.size(), 1e-9);
    assertTrue(single >= 3 && single < observed.size(), "both kinds present: " + observed);
  }

  /**
   * Sends the query in a session for the tenant's shard; if the guard refuses it for want of the
   * key, sends it as a scatter-gather query. True when it ran on one shard (only that shard's
   * statement timer moved, no scatter started), false when it fanned out to both.
   */
  private static boolean runsOnOneShard(ShardedSessions shards, SimpleMeterRegistry meters, String tenantShard,
      DeclaredQuery query) {
    Map<String, Long> statementsBefore = statements(meters);
    long scattersBefore = scatters(meters);
    Map<String, Object> parameters = parameters(query.text());
    try {
      shards.forKey(TENANT).fromSession(session -> {
        var sent = session.createQuery(query.text(), Object.class);
        parameters.forEach((name, value) -> sent.setParameter(name, value));
        return sent.getResultList();
      });
      Map<String, Long> ran = delta(statementsBefore, statements(meters));
      assertEquals(List.of(tenantShard), List.copyOf(ran.keySet()), query.name() + " ran on the tenant's shard only");
      assertEquals(scattersBefore, scatters(meters), query.name());
      return true;
    } catch (RuntimeException refused) {
      assertTrue(keyMissing(refused), query.name() + " failed for another reason than the missing key: " + refused);
    }
    assertEquals(Map.of(), delta(statementsBefore, statements(meters)), query.name() + ": refused before any SQL");
    var scatter = shards.scatter().createQuery(query.text(), Object.class);
    parameters.forEach((name, value) -> scatter.setParameter(name, value));
    scatter.getResultList();
    assertEquals(scattersBefore + 1, scatters(meters), query.name() + " scattered");
    assertEquals(List.of("s0", "s1"), List.copyOf(delta(statementsBefore, statements(meters)).keySet()),
        query.name() + " ran on both shards");
    return false;
  }

  /** A value for every {@code :name} of the query: the tenant's id for its key, a plausible one for the others. */
  private static Map<String, Object> parameters(String hql) {
    Map<String, Object> values = new LinkedHashMap<>();
    Matcher parameter = PARAMETER.matcher(hql);
    while (parameter.find()) {
      String name = parameter.group(1);
      values.put(name, switch (name) {
        case "tenantId" -> TENANT;
        case "email", "name" -> "someone";
        case "done" -> Boolean.TRUE;
        default -> 1L;
      });
    }
    return values;
  }

  private static boolean keyMissing(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof ShardKeyMissingException) {
        return true;
      }
    }
    return false;
  }

  /** Statements each shard's servers ran, by shard, from the {@code shardwise.statement} timers. */
  private static Map<String, Long> statements(SimpleMeterRegistry meters) {
    Map<String, Long> byShard = new TreeMap<>();
    for (Timer timer : meters.find("shardwise.statement").timers()) {
      byShard.merge(timer.getId().getTag("shard"), timer.count(), Long::sum);
    }
    return byShard;
  }

  private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> moved = new LinkedHashMap<>();
    after.forEach((shard, count) -> {
      if (count > before.getOrDefault(shard, 0L)) {
        moved.put(shard, count - before.getOrDefault(shard, 0L));
      }
    });
    return moved;
  }

  private static long scatters(SimpleMeterRegistry meters) {
    var fanout = meters.find("shardwise.scatter.fanout").summary();
    return fanout == null ? 0 : fanout.count();
  }

  /**
   * The proposal applied by hand as the patch prints it, compiled with shardwise-processor into a
   * package of its own ({@value #ANNOTATED}), so that no class of the unannotated model on the test
   * class path shadows it when Hibernate loads the entities by name.
   */
  private Path compileTheAnnotatedModel() throws IOException {
    Path sources = work.resolve("annotated-sources");
    Path classes = work.resolve("annotated-classes");
    Files.createDirectories(sources);
    List<String> javac = new ArrayList<>(List.of("-processor", "io.shardwise.processor.ShardwiseProcessor", "-d",
        classes.toString(), "-classpath", System.getProperty("java.class.path")));
    try (Stream<Path> files = Files.walk(Path.of("src/test/resources/saas-annotated"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        Path moved = sources.resolve(file.getFileName());
        Files.writeString(moved, Files.readString(file).replace("package io.shardwise.advisor.saas;",
            "package " + ANNOTATED + ";"));
        javac.add(moved.toString());
      }
    }
    assertEquals(0, ToolProvider.getSystemJavaCompiler().run(null, null, null, javac.toArray(String[]::new)),
        "the processor accepts the annotated model");
    assertTrue(Files.exists(classes.resolve("META-INF/shardwise/routing.properties")), "routing metadata written");
    return classes;
  }
}
