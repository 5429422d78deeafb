package io.shardwise.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The layering of Shardwise, as docs/architecture.md draws it. Each rule fails the build when a
 * change breaks it; its {@code because} says why the line is there.
 *
 * <pre>
 *   annotations  ←  query-rules  ←  processor
 *                        ↑
 *                     runtime (io.shardwise.hibernate)  ←  sample-app, benchmarks
 *   testkit (depends on no Shardwise module)            ←  tests, sample-app, benchmarks
 * </pre>
 */
@AnalyzeClasses(packages = "io.shardwise", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  private static final String ANNOTATIONS = "io.shardwise.annotations..";
  private static final String QUERY_RULES = "io.shardwise.queryrules..";
  private static final String PROCESSOR = "io.shardwise.processor..";
  private static final String RUNTIME = "io.shardwise.hibernate..";
  private static final String RUNTIME_INTERNALS = "io.shardwise.hibernate..internal..";
  private static final String TESTKIT = "io.shardwise.testkit..";
  private static final String SAMPLE = "io.shardwise.sample..";
  private static final String BENCHMARKS = "io.shardwise.benchmarks..";
  private static final String CLI = "io.shardwise.cli..";
  private static final String ADVISOR = "io.shardwise.advisor..";

  // ---- modules ---------------------------------------------------------------------------------

  @ArchTest
  static final ArchRule annotationsDependOnNoOtherModule = noClasses().that().resideInAPackage(ANNOTATIONS)
      .should().dependOnClassesThat().resideInAnyPackage(QUERY_RULES, PROCESSOR, RUNTIME, TESTKIT, SAMPLE, BENCHMARKS, ADVISOR)
      .because("the annotations are the vocabulary every other module builds on");

  @ArchTest
  static final ArchRule queryRulesDependOnTheAnnotationsOnly = noClasses().that().resideInAPackage(QUERY_RULES)
      .should().dependOnClassesThat().resideInAnyPackage(PROCESSOR, RUNTIME, TESTKIT, SAMPLE, BENCHMARKS, ADVISOR)
      .because("the shard-key rule is shared by the processor and the runtime, so it may know neither");

  @ArchTest
  static final ArchRule processorNeverDependsOnTheRuntime = noClasses().that().resideInAPackage(PROCESSOR)
      .should().dependOnClassesThat().resideInAnyPackage(RUNTIME, TESTKIT, SAMPLE, BENCHMARKS, ADVISOR)
      .because("the runtime would bring HikariCP and the JDBC driver onto every user's annotation-processor path");

  @ArchTest
  static final ArchRule runtimeDependsOnNoToolOrApp = noClasses().that().resideInAPackage(RUNTIME)
      .should().dependOnClassesThat().resideInAnyPackage(PROCESSOR, TESTKIT, SAMPLE, BENCHMARKS, CLI, ADVISOR)
      .because("the runtime uses the query rules, never the processor, the testkit or the apps and tools built on it");

  @ArchTest
  static final ArchRule testkitNeverDependsOnShardwise = noClasses().that().resideInAPackage(TESTKIT)
      .should().dependOnClassesThat().resideInAnyPackage(RUNTIME, PROCESSOR, QUERY_RULES, SAMPLE, BENCHMARKS, ADVISOR)
      .because("the testkit provides PostgreSQL to the runtime's tests; depending on the runtime would make them circular");

  @ArchTest
  static final ArchRule theAdvisorJudgesByTheRuleNotByTheProcessor = noClasses().that().resideInAPackage(ADVISOR)
      .should().dependOnClassesThat().resideInAnyPackage(PROCESSOR, TESTKIT, SAMPLE, BENCHMARKS, CLI)
      .because("the advisor holds queries to the processor's rule (query-rules), so its advice and the build agree"
          + " without the processor's internals; the command line builds on the advisor, not the other way round");

  @ArchTest
  static final ArchRule nothingOutsideTheRuntimeUsesItsInternals = noClasses()
      .that().resideInAnyPackage(SAMPLE, BENCHMARKS, CLI, TESTKIT, PROCESSOR, QUERY_RULES, ANNOTATIONS, ADVISOR)
      .should().dependOnClassesThat().resideInAPackage(RUNTIME_INTERNALS)
      .because("what an application needs is public API; internals change without notice");

  // ---- the runtime's packages ------------------------------------------------------------------

  private static final String[] CAPABILITY_APIS = {"io.shardwise.hibernate.routing", "io.shardwise.hibernate.readwrite",
      "io.shardwise.hibernate.scatter", "io.shardwise.hibernate.transaction", "io.shardwise.hibernate.globalindex",
      "io.shardwise.hibernate.resharding", "io.shardwise.hibernate.metrics", "io.shardwise.hibernate.migrations",
      "io.shardwise.hibernate.operations", "io.shardwise.hibernate.id"};
  private static final String[] SHARED_PLUMBING = {"io.shardwise.hibernate.internal",
      "io.shardwise.hibernate.routing.internal", "io.shardwise.hibernate.metrics.internal"};
  private static final String[] CAPABILITY_IMPLEMENTATIONS = {"io.shardwise.hibernate.readwrite.internal",
      "io.shardwise.hibernate.scatter.internal", "io.shardwise.hibernate.transaction.internal",
      "io.shardwise.hibernate.globalindex.internal", "io.shardwise.hibernate.resharding.internal",
      "io.shardwise.hibernate.migrations.internal", "io.shardwise.hibernate.operations.internal",
      "io.shardwise.hibernate.internal.query"};

  private static DescribedPredicate<JavaClass> rootClass(boolean entryPoint) {
    return DescribedPredicate.describe(entryPoint ? "the root package's entry points" : "the root package's base types",
        c -> c.getPackageName().equals("io.shardwise.hibernate")
            && ENTRY_POINTS.contains(c.getName().substring("io.shardwise.hibernate.".length()).split("\\$")[0]) == entryPoint);
  }

  /** The classes of the root package that sit on top of the capability packages. */
  private static final Set<String> ENTRY_POINTS = Set.of("Shardwise", "ShardedSessions", "ShardRoute", "ShardedRepositories");

  /**
   * Every package of the runtime is a slice, except the root package, which is two: its entry points
   * (which use every capability) and what every capability builds on (the base exceptions,
   * {@code ShardContext}, {@code ShardwiseSettings}).
   */
  private static final SliceAssignment RUNTIME_PACKAGES = new SliceAssignment() {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
      String pkg = javaClass.getPackageName();
      if (!pkg.equals("io.shardwise.hibernate") && !pkg.startsWith("io.shardwise.hibernate.")) {
        return SliceIdentifier.ignore();
      }
      if (pkg.equals("io.shardwise.hibernate")) {
        String topLevel = javaClass.getName().substring(pkg.length() + 1).split("\\$")[0];
        return SliceIdentifier.of(ENTRY_POINTS.contains(topLevel) ? "io.shardwise.hibernate (entry points)"
            : "io.shardwise.hibernate (exceptions, context, settings)");
      }
      return SliceIdentifier.of(pkg);
    }

    @Override
    public String getDescription() {
      return "packages of the runtime";
    }
  };

  @ArchTest
  static final ArchRule runtimePackagesAreFreeOfCycles = slices().assignedFrom(RUNTIME_PACKAGES)
      .should().beFreeOfCycles()
      .because("each capability sits on the ones below it; the wiring and the entry points sit on top");

  /**
   * The runtime's layers, from the bottom: what everything builds on; the capabilities' API; the
   * plumbing they share; their implementations; the composition root; what Hibernate and the
   * application call. A package may use its own layer and the ones below it, never one above. One
   * arrow is let through: {@code SnowflakeGenerator} is also what Hibernate instantiates for
   * {@code @SnowflakeId} in a factory that is not sharded, and it reads its settings with the parser
   * the sharded configuration uses.
   */
  @ArchTest
  static final ArchRule runtimeLayersDependOnlyDownwards = layeredArchitecture().consideringOnlyDependenciesInLayers()
      .layer("foundation").definedBy(rootClass(false).or(JavaClass.Predicates.resideInAPackage(
          "io.shardwise.hibernate.internal.jdbc")))
      .layer("capability API").definedBy(JavaClass.Predicates.resideInAnyPackage(CAPABILITY_APIS))
      .layer("shared plumbing").definedBy(JavaClass.Predicates.resideInAnyPackage(SHARED_PLUMBING))
      .layer("capability implementations").definedBy(JavaClass.Predicates.resideInAnyPackage(CAPABILITY_IMPLEMENTATIONS))
      .layer("composition root").definedBy(JavaClass.Predicates.resideInAPackage("io.shardwise.hibernate.wiring.."))
      .layer("entry points").definedBy(rootClass(true).or(JavaClass.Predicates.resideInAPackage(
          "io.shardwise.hibernate.spi")))
      .whereLayer("entry points").mayNotBeAccessedByAnyLayer()
      .whereLayer("composition root").mayOnlyBeAccessedByLayers("entry points")
      .whereLayer("capability implementations").mayOnlyBeAccessedByLayers("composition root", "entry points")
      .whereLayer("shared plumbing").mayOnlyBeAccessedByLayers("capability implementations", "composition root",
          "entry points")
      .whereLayer("capability API").mayOnlyBeAccessedByLayers("shared plumbing", "capability implementations",
          "composition root", "entry points")
      .ignoreDependency("io.shardwise.hibernate.id.SnowflakeGenerator",
          "io.shardwise.hibernate.internal.SnowflakeSettings")
      .because("the composition root sits above the capabilities and wires them; the plumbing they share sits"
          + " below them; an arrow from a lower layer up to a higher one makes the lower one depend on everything");

  @ArchTest
  static final ArchRule routingNeverDependsOnResharding = noClasses()
      .that().resideInAPackage("io.shardwise.hibernate.routing..")
      .should().dependOnClassesThat().resideInAPackage("io.shardwise.hibernate.resharding..")
      .because("a move changes routing only by publishing shard map versions (and the shards' fences); the router"
          + " must work, and be understood, without the mover");

  @ArchTest
  static final ArchRule theMoverIsBuiltOnlyByTheEntryPoints = noClasses()
      .that().resideInAPackage("io.shardwise.hibernate..")
      .and().resideOutsideOfPackage("io.shardwise.hibernate.resharding.internal..")
      .and().doNotHaveSimpleName("Shardwise").and().doNotHaveSimpleName("ShardedSessions")
      .should().dependOnClassesThat().resideInAPackage("io.shardwise.hibernate.resharding.internal..")
      .because("the resharding engine talks to shards and the control database directly; the runtime's request"
          + " path (router, pools, sessions) must never call into it");

  @ArchTest
  static final ArchRule onlyTheMetricsImplementationUsesMicrometer = noClasses()
      .that().resideInAPackage(RUNTIME).and().resideOutsideOfPackage("io.shardwise.hibernate.metrics.internal..")
      .should().dependOnClassesThat().resideInAnyPackage("io.micrometer..", "com.zaxxer.hikari.metrics.micrometer..")
      .because("Micrometer is an optional dependency: the runtime must load and run without it, so only the"
          + " recorder that a configured MeterRegistry selects may touch its types");

  @ArchTest
  static final ArchRule onlyTheMigrationsImplementationUsesFlyway = noClasses()
      .that().resideInAPackage(RUNTIME).and().resideOutsideOfPackage("io.shardwise.hibernate.migrations.internal..")
      .should().dependOnClassesThat().resideInAPackage("org.flywaydb..")
      .because("Flyway is an optional dependency: the runtime (and its version gate, which reads the history table"
          + " with plain JDBC) must load and run without it");

  @ArchTest
  static final ArchRule onlyShardFailuresTranslatesAShardsFailureIntoAnAbort = noClasses()
      .that().resideInAPackage(RUNTIME)
      .and().doNotHaveFullyQualifiedName("io.shardwise.hibernate.internal.ShardFailures")
      .and().areNotAssignableTo("io.shardwise.hibernate.TransactionAbortedException")
      .should().callConstructorWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
          com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner(
              com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo(
                  "io.shardwise.hibernate.TransactionAbortedException"))))
      .because("every public entry point translates a shard's failure through ShardFailures, so that a lock"
          + " timeout, a deadlock or a fence means the same exception whichever entry point met it; a second"
          + " translation would drift from it");

  @ArchTest
  static final ArchRule publicApiNeverExposesInternals = classes()
      .that().resideInAPackage(RUNTIME).and().resideOutsideOfPackage(RUNTIME_INTERNALS)
      .should(exposeNoInternalTypes())
      .because("an API type must not hand out or take implementation types: make it an interface or a final"
          + " class without a public constructor, and put the implementation in .internal");

  private static ArchCondition<JavaClass> exposeNoInternalTypes() {
    return new ArchCondition<>("expose no ..internal.. type in a public or protected signature") {
      @Override
      public void check(JavaClass javaClass, ConditionEvents events) {
        if (!isVisibleApi(javaClass)) {
          return;
        }
        List<String> problems = new ArrayList<>();
        supertypes(javaClass).forEach(t -> internalIn(t, javaClass.getName() + " extends/implements", problems));
        for (JavaMember member : javaClass.getMembers()) {
          if (!member.getModifiers().contains(JavaModifier.PUBLIC)
              && !member.getModifiers().contains(JavaModifier.PROTECTED)) {
            continue;
          }
          if (member instanceof JavaField field) {
            internalIn(field.getType(), field.getFullName(), problems);
          } else if (member instanceof JavaCodeUnit code) {
            internalIn(code.getReturnType(), code.getFullName() + " returns", problems);
            code.getParameterTypes().forEach(p -> internalIn(p, code.getFullName() + " takes", problems));
          }
        }
        problems.forEach(p -> events.add(SimpleConditionEvent.violated(javaClass, p)));
      }
    };
  }

  private static boolean isVisibleApi(JavaClass javaClass) {
    for (JavaClass c = javaClass; c != null; c = c.getEnclosingClass().orElse(null)) {
      if (!c.getModifiers().contains(JavaModifier.PUBLIC)) {
        return false;
      }
    }
    return !javaClass.isAnonymousClass() && !javaClass.isLocalClass();
  }

  private static List<JavaType> supertypes(JavaClass javaClass) {
    List<JavaType> all = new ArrayList<>(javaClass.getInterfaces());
    javaClass.getSuperclass().ifPresent(all::add);
    return all;
  }

  private static void internalIn(JavaType type, String where, List<String> problems) {
    for (JavaClass involved : type.getAllInvolvedRawTypes()) {
      if (involved.getPackageName().startsWith("io.shardwise.hibernate.")
          && (involved.getPackageName().endsWith(".internal") || involved.getPackageName().contains(".internal."))) {
        problems.add(where + " " + involved.getName());
      }
    }
  }
}
