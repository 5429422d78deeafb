package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The processor under the Eclipse compiler (ECJ 3.38, the compiler Eclipse IDE runs processors
 * in): annotation queries and Spring Data repositories are checked, the entity index is written,
 * and it is read back from a jar and from an output directory. ECJ has no javac tree API, so strings passed to createQuery in
 * method bodies are not checked there (docs/compile-time-checks.md says so).
 */
class EclipseCompilerTest {

  private static final String QUERIES = """
      package reports;
      import io.shardwise.annotations.ReferenceTable;
      import jakarta.persistence.*;
      @Entity
      @ReferenceTable
      @NamedQuery(name = "Report.open", query = "from PurchaseOrder o where o.status = 'OPEN'")
      @NamedQuery(name = "Report.mine", query = "from PurchaseOrder o where o.merchantId = :m")
      @NamedQuery(name = "Report.lost", query = "from Shipment s")
      public class Report {
        @Id Long id;
      }
      """;

  private static Compilation compiledModel() {
    Compilation model = Fixtures.model().eclipse().writingClasses()
        .compileWith(new ShardwiseProcessor());
    model.assertClean();
    return model;
  }

  @Test
  void theModelIsCheckedAndItsEntityIndexWritten() {
    Compilation model = compiledModel();
    assertTrue(Files.exists(model.output(EntityIndex.DIRECTORY + "PurchaseOrder")), model.dump());
    assertTrue(Files.exists(model.output(RoutingMetadataWriter.RESOURCE)), model.dump());
  }

  @Test
  void queriesAgainstTheModelsJarAreChecked() {
    assertQueriesChecked(compiledModel().outputAsJar());
  }

  @Test
  void queriesAgainstTheModelsOutputDirectoryAreChecked() {
    assertQueriesChecked(compiledModel().output());
  }

  @Test
  void springDataRepositoriesAreCheckedToo() {
    Compilation c = SpringDataFixtures.model().eclipse().source("app/Orders.java", """
        package app;
        import java.util.List;
        import org.springframework.data.jpa.repository.JpaRepository;
        interface Orders extends JpaRepository<PurchaseOrder, Long> {
          List<PurchaseOrder> findByMerchantIdAndStatus(long merchantId, String status);
          List<PurchaseOrder> findByStatus(String status);
        }
        """).compileWith(new ShardwiseProcessor());
    String message = c.assertError(Tag.QueryWithoutShardKey, "app/Orders.java", "findByStatus(");
    assertTrue(message.contains("as in findByMerchantIdAndStatus(long merchantId"), message);
    c.assertErrorCount(1);
  }

  private static void assertQueriesChecked(Path model) {
    Compilation c = new Compilation().eclipse().source("reports/Report.java", QUERIES)
        .classPath(model).compileWith(new ShardwiseProcessor());
    // Without javac's tree API a repeated @NamedQuery has no position of its own: ECJ reports
    // both on the class, each naming its query.
    String open = c.assertError(Tag.QueryWithoutShardKey, "reports/Report.java", "public class");
    assertTrue(open.contains("o.status = 'OPEN'"), open);
    String lost = c.assertError(Tag.UnresolvedEntity, "reports/Report.java", "public class");
    assertTrue(lost.contains("Named query Report.lost names entity Shipment"), lost);
    c.assertErrorCount(2);
  }
}
