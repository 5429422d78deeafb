package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.annotation.processing.Processor;
import org.hibernate.processor.HibernateProcessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Queries compiled apart from their entities, as multi-module builds, incremental builds and IDEs
 * compile them: against the model's jar, against the model's own earlier output directory, and
 * with the model only on the source path. Each query must be checked exactly as if the model
 * were compiled with it, with and without hibernate-processor beside Shardwise.
 */
class SeparateCompilationTest {

  /** A co-located entity whose entity name is not its class name. */
  private static final String INVOICE = """
      package app;
      import io.shardwise.annotations.*;
      import jakarta.persistence.*;
      @Entity(name = "Bill")
      @CoLocated(with = Merchant.class)
      public class Invoice {
        @Id Long id;
        @ShardKey long merchantId;
        boolean paid;
      }
      """;

  /** Queries in another package, naming entities by entity name only (no import of them). */
  private static final String REPORT = """
      package reports;
      import jakarta.persistence.EntityManager;
      class Report {
        static final String OPEN = "from PurchaseOrder o where o.status = 'OPEN'";
        static final String MINE = "from PurchaseOrder o where o.merchantId = :m";

        void run(EntityManager em) {
          em.createQuery(OPEN);
          em.createQuery(MINE);
          em.createQuery("from Bill b where b.paid = false");
          em.createQuery("from Bill b where b.merchantId = :m and b.paid = false");
          em.createQuery("select i from OrderItem i join i.order o where o.merchantId = :m");
          em.createQuery("from Country c");
          em.createQuery("from app.Customer c where c.email = :e");
        }
      }
      """;

  private static final String REPORT_PATH = "reports/Report.java";

  private static Processor[] processors(boolean withHibernate) {
    return withHibernate
        ? new Processor[] {new HibernateProcessor(), new ShardwiseProcessor()}
        : new Processor[] {new ShardwiseProcessor()};
  }

  private static Compilation compiledModel(boolean withHibernate) {
    Compilation model = Fixtures.model().source("app/Invoice.java", INVOICE).writingClasses()
        .compileWith(processors(withHibernate));
    model.assertClean();
    return model;
  }

  private static void assertReportChecked(Compilation c) {
    String open = c.assertError(Tag.QueryWithoutShardKey, REPORT_PATH, "createQuery(OPEN)");
    assertTrue(open.contains("o.merchantId = :merchantId"), open);
    String bill = c.assertError(Tag.QueryWithoutShardKey, REPORT_PATH, "where b.paid = false");
    assertTrue(bill.contains("sharded entity Invoice b"), bill);
    c.assertError(Tag.QueryWithoutShardKey, REPORT_PATH, "app.Customer");
    c.assertErrorCount(3);
  }

  @ParameterizedTest(name = "with hibernate-processor: {0}")
  @ValueSource(booleans = {false, true})
  void queriesCompiledAgainstTheModelsJarAreChecked(boolean withHibernate) {
    Path jar = compiledModel(withHibernate).outputAsJar();
    Compilation c = new Compilation().source(REPORT_PATH, REPORT).classPath(jar)
        .compileWith(processors(withHibernate));
    assertReportChecked(c);
  }

  @ParameterizedTest(name = "with hibernate-processor: {0}")
  @ValueSource(booleans = {false, true})
  void oneFileCompiledAloneAgainstTheModelsOutputIsChecked(boolean withHibernate) {
    Path classes = compiledModel(withHibernate).output();
    Compilation c = new Compilation().source(REPORT_PATH, REPORT).classPath(classes)
        .compileWith(processors(withHibernate));
    assertReportChecked(c);
  }

  @Test
  void theOutputOfACleanCompilationIndexesEveryEntityByName() throws IOException {
    Compilation model = compiledModel(false);
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("Bill", "app.Invoice");
    expected.put("Country", "app.Country");
    expected.put("Customer", "app.Customer");
    expected.put("Merchant", "app.Merchant");
    expected.put("OrderItem", "app.OrderItem");
    expected.put("PurchaseOrder", "app.PurchaseOrder");
    Map<String, String> found = new LinkedHashMap<>();
    try (var files = Files.list(model.output(EntityIndex.DIRECTORY))) {
      files.sorted().forEach(file -> found.put(file.getFileName().toString(), read(file)));
    }
    assertEquals(expected, found);
  }

  /**
   * javac looks into jars only through directories named by identifiers, while a module makes a
   * package of every resource directory whose path is a legal package name (two modules with the
   * same one cannot share an application). A keyword is the one thing that is the first and not
   * the second.
   */
  @Test
  void theIndexDirectoryIsVisibleToJavacButIsNoPackageName() {
    String directory = EntityIndex.DIRECTORY.substring(0, EntityIndex.DIRECTORY.length() - 1);
    for (String segment : directory.split("/")) {
      assertTrue(javax.lang.model.SourceVersion.isIdentifier(segment), segment);
    }
    assertFalse(javax.lang.model.SourceVersion.isName(directory.replace('/', '.')), directory);
  }

  @Test
  void theModelOnTheSourcePathIsFoundThroughTheQueryFilesImportsAndPackage() {
    Map<String, String> model = new LinkedHashMap<>();
    model.put("app/Merchant.java", Fixtures.MERCHANT);
    model.put("app/PurchaseOrder.java", Fixtures.ORDER);
    model.put("app/OrderItem.java", Fixtures.ITEM);
    model.put("app/Country.java", Fixtures.COUNTRY);
    model.put("app/Invoice.java", INVOICE);
    Path sources = Compilation.onDisk(model);
    Compilation c = new Compilation().source("app/Dao.java", """
        package app;
        import jakarta.persistence.EntityManager;
        class Dao {
          void run(EntityManager em) {
            em.createQuery("from PurchaseOrder o where o.status = 'OPEN'");
            em.createQuery("from PurchaseOrder o where o.merchantId = :m");
          }
        }
        """).source("reports/Imported.java", """
        package reports;
        import app.OrderItem;
        import jakarta.persistence.EntityManager;
        class Imported {
          void run(EntityManager em) {
            em.createQuery("from OrderItem i where i.quantity = 0", OrderItem.class);
            em.createQuery("from Bill b where b.merchantId = :m");
          }
        }
        """).sourcePath(sources).compileWith(new ShardwiseProcessor());
    c.assertError(Tag.QueryWithoutShardKey, "app/Dao.java", "o.status = 'OPEN'");
    c.assertError(Tag.QueryWithoutShardKey, "reports/Imported.java", "i.quantity = 0");
    // An entity name that is not a class name cannot be found on the source path (no index
    // exists there): reported, never passed over.
    String bill = c.assertError(Tag.UnresolvedEntity, "reports/Imported.java", "from Bill");
    assertTrue(bill.contains("names entity Bill"), bill);
    c.assertErrorCount(3);
  }

  @Test
  void anEntityIndexWrittenByHibernateProcessorAloneIsReadToo() {
    Compilation model = Fixtures.model().source("app/Invoice.java", INVOICE).writingClasses()
        .compileWith(new HibernateProcessor());
    assertTrue(Files.exists(model.output(EntityIndex.HIBERNATE_DIRECTORY + "Bill")),
        "hibernate-processor 7.4 writes entity/index/<name>; this test pins that assumption");
    assertFalse(Files.exists(model.output(EntityIndex.DIRECTORY)), "Shardwise did not run");
    Compilation c = new Compilation().source(REPORT_PATH, REPORT).classPath(model.outputAsJar())
        .compileWith(new ShardwiseProcessor());
    assertReportChecked(c);
  }

  @Test
  void aStaleIndexEntryNeverResolvesANameWrongly() {
    Path classes = compiledModel(false).output();
    // The entity behind "Bill" is recompiled under another entity name; the old output still
    // lists Bill -> app.Invoice.
    Compilation c = new Compilation()
        .source("app/Invoice.java", INVOICE.replace("name = \"Bill\"", "name = \"Receipt\""))
        .source(REPORT_PATH, REPORT).classPath(classes).compileWith(new ShardwiseProcessor());
    c.assertError(Tag.UnresolvedEntity, REPORT_PATH, "where b.paid = false");
    c.assertError(Tag.UnresolvedEntity, REPORT_PATH, "b.merchantId = :m and");
  }

  @Test
  void anUnknownEntityIsAnErrorThatNamesTheQueryAndTheName() {
    Compilation c = Fixtures.model().source("app/Dao.java", """
        package app;
        import jakarta.persistence.EntityManager;
        class Dao {
          void run(EntityManager em) {
            em.createQuery("from Shipment s where s.carrier = :c");
            em.createQuery("select o from PurchaseOrder o join Parcel p on p.id = o.id"
                + " where o.merchantId = :m");
          }
        }
        """).compileWith(new ShardwiseProcessor());
    String message = c.assertError(Tag.UnresolvedEntity, "app/Dao.java", "Shipment");
    assertTrue(message.startsWith("[UnresolvedEntity] createQuery in Dao.run names entity"
        + " Shipment, which Shardwise cannot find"), message);
    assertTrue(message.contains("query \"from Shipment s where s.carrier = :c\" is not checked"),
        message);
    assertTrue(message.contains("-Ashardwise.unresolvedEntity=warning"), message);
    String join = c.assertError(Tag.UnresolvedEntity, "app/Dao.java", "join Parcel");
    assertTrue(join.contains("names entity Parcel"), join);
    c.assertErrorCount(2);
  }

  @Test
  void theOptionMakesAnUnresolvedEntityAWarning() {
    Compilation c = Fixtures.model().source("app/Queries.java", """
        package app;
        import org.hibernate.annotations.processing.HQL;
        import java.util.List;
        interface Queries {
          @HQL("from Shipment s where s.carrier = :c") List<Object> shipments(String c);
          @HQL("from PurchaseOrder o") List<PurchaseOrder> all();
        }
        """).option("-Ashardwise.unresolvedEntity=warning").compileWith(new ShardwiseProcessor());
    String message = c.assertWarning(Tag.UnresolvedEntity, "app/Queries.java", "Shipment");
    assertTrue(message.contains("@HQL method Queries.shipments"), message);
    // Only the unresolved entity is downgraded; an unpinned query stays an error.
    c.assertError(Tag.QueryWithoutShardKey, "app/Queries.java", "from PurchaseOrder o\")");
    c.assertErrorCount(1);
  }

  @Test
  void anOptionValueItDoesNotKnowIsAnError() {
    Compilation c = Fixtures.model().option("-Ashardwise.unresolvedEntity=ignore")
        .compileWith(new ShardwiseProcessor());
    assertFalse(c.succeeded(), c.dump());
    assertTrue(c.dump().contains("-Ashardwise.unresolvedEntity=ignore is not understood"),
        c.dump());
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
