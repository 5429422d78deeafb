package io.shardwise.architecture;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import io.shardwise.advisor.violation.AdvisorUsingTheProcessor;
import io.shardwise.annotations.violation.AnnotationUsingTheQueryRules;
import io.shardwise.hibernate.violation.RuntimeTranslatingOnItsOwn;
import io.shardwise.hibernate.violation.RuntimeUsingFlyway;
import io.shardwise.hibernate.violation.RuntimeUsingMicrometer;
import io.shardwise.hibernate.violation.RuntimeUsingTheTestkit;
import io.shardwise.hibernate.violation.api.ApiExposingInternals;
import io.shardwise.hibernate.violation.cyclea.UsesB;
import io.shardwise.hibernate.violation.cycleb.UsesA;
import io.shardwise.processor.violation.ProcessorUsingTheRuntime;
import io.shardwise.queryrules.violation.RuleUsingTheProcessor;
import io.shardwise.sample.violation.AppUsingAnInternal;
import io.shardwise.testkit.violation.TestkitUsingTheRuntime;
import org.junit.jupiter.api.Test;

/**
 * Every rule of {@link ArchitectureTest} fails on a class written to break it (the classes in the
 * {@code ..violation..} packages of this module's tests, which the real analysis does not import).
 */
class RulesCatchViolationsTest {

  private static void fails(ArchRule rule, Class<?>... offenders) {
    JavaClasses classes = new ClassFileImporter().importClasses(offenders);
    AssertionError error = assertThrows(AssertionError.class, () -> rule.check(classes));
    for (Class<?> offender : offenders) {
      assertTrue(error.getMessage().contains(offender.getSimpleName()), error.getMessage());
    }
  }

  @Test
  void annotations() {
    fails(ArchitectureTest.annotationsDependOnNoOtherModule, AnnotationUsingTheQueryRules.class);
  }

  @Test
  void queryRules() {
    fails(ArchitectureTest.queryRulesDependOnTheAnnotationsOnly, RuleUsingTheProcessor.class);
  }

  @Test
  void processor() {
    fails(ArchitectureTest.processorNeverDependsOnTheRuntime, ProcessorUsingTheRuntime.class);
  }

  @Test
  void advisor() {
    fails(ArchitectureTest.theAdvisorJudgesByTheRuleNotByTheProcessor, AdvisorUsingTheProcessor.class);
  }

  @Test
  void runtime() {
    fails(ArchitectureTest.runtimeDependsOnNoToolOrApp, RuntimeUsingTheTestkit.class);
  }

  @Test
  void micrometerOutsideTheMetricsImplementation() {
    fails(ArchitectureTest.onlyTheMetricsImplementationUsesMicrometer, RuntimeUsingMicrometer.class);
  }

  @Test
  void flywayOutsideTheMigrationsImplementation() {
    fails(ArchitectureTest.onlyTheMigrationsImplementationUsesFlyway, RuntimeUsingFlyway.class);
  }

  @Test
  void aSecondTranslationOfShardFailures() {
    fails(ArchitectureTest.onlyShardFailuresTranslatesAShardsFailureIntoAnAbort, RuntimeTranslatingOnItsOwn.class);
  }

  @Test
  void testkit() {
    fails(ArchitectureTest.testkitNeverDependsOnShardwise, TestkitUsingTheRuntime.class);
  }

  @Test
  void internalsFromOutside() {
    fails(ArchitectureTest.nothingOutsideTheRuntimeUsesItsInternals, AppUsingAnInternal.class);
  }

  @Test
  void packageCycles() {
    fails(ArchitectureTest.runtimePackagesAreFreeOfCycles, UsesA.class, UsesB.class);
  }

  @Test
  void publicApiExposingInternals() {
    fails(ArchitectureTest.publicApiNeverExposesInternals, ApiExposingInternals.ReturnsOne.class,
        ApiExposingInternals.TakesOneInAGenericParameter.class, ApiExposingInternals.HasAPublicField.class,
        ApiExposingInternals.HasAPublicConstructor.class);
  }

  @Test
  void privateUseOfAnInternalIsNotExposure() {
    JavaClasses classes = new ClassFileImporter().importClasses(ApiExposingInternals.KeepsItPrivate.class);
    assertDoesNotThrow(() -> ArchitectureTest.publicApiNeverExposesInternals.check(classes));
  }
}
