package io.shardwise.processor;

import com.sun.source.util.Trees;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.tools.Diagnostic;

/**
 * Shardwise's build-time checks, as an annotation processor registered through
 * {@code META-INF/services}: the sharding model of every {@code @Entity} (shard keys, co-location,
 * reference tables, associations, {@code @SnowflakeId}) and the shard key of every JPQL/HQL query
 * the sources declare or pass to {@code createQuery}, and the methods of Spring Data repositories
 * of sharded entities ({@link SpringDataChecks}). Each problem is an error on the offending
 * element with a bracketed tag and the fix; all of them are reported, not just the first.
 *
 * <p>It claims no annotation ({@link #process} returns false), so hibernate-processor and any other
 * processor still see every element. Queries that do not parse are left to Hibernate to report.
 */
public final class ShardwiseProcessor extends AbstractProcessor {

  /**
   * The processor option ({@code -Ashardwise.unresolvedEntity=warning}) that reports queries whose
   * entity cannot be resolved as warnings instead of errors.
   */
  static final String UNRESOLVED_ENTITY_OPTION = "shardwise.unresolvedEntity";

  /**
   * The processor option ({@code -Ashardwise.maxErrors=200}) that sets how many errors are printed
   * one by one before the rest go to the report file only (see {@link Reporter}).
   */
  static final String MAX_ERRORS_OPTION = "shardwise.maxErrors";

  private EntityModel model;
  private EntityIndex index;
  private Reporter reporter;
  private ModelChecks modelChecks;
  private KeyPathChecks keyPathChecks;
  private QueryChecks queryChecks;
  private SpringDataChecks springDataChecks;
  private RoutingMetadataWriter routing;

  @Override
  public synchronized void init(ProcessingEnvironment environment) {
    super.init(environment);
    reporter = new Reporter(environment.getMessager(), environment.getFiler(), treesOf(environment),
        maxErrors(environment));
    index = new EntityIndex(environment.getFiler(), reporter);
    model = new EntityModel(environment.getElementUtils(), environment.getTypeUtils(), index);
    modelChecks = new ModelChecks(model, reporter);
    keyPathChecks = new KeyPathChecks(model, reporter);
    routing = new RoutingMetadataWriter(environment.getElementUtils());
    queryChecks = new QueryChecks(model, reporter, environment.getElementUtils(),
        environment.getTypeUtils(), treesOf(environment), routing,
        unresolvedKind(environment));
    springDataChecks =
        new SpringDataChecks(model, reporter, environment.getElementUtils(),
            environment.getTypeUtils(), queryChecks);
  }

  /** How an unresolved entity is reported: an error unless the option says warning. */
  private static Diagnostic.Kind unresolvedKind(ProcessingEnvironment environment) {
    String value = environment.getOptions().get(UNRESOLVED_ENTITY_OPTION);
    if (value == null || value.equalsIgnoreCase("error")) {
      return Diagnostic.Kind.ERROR;
    }
    if (value.equalsIgnoreCase("warning")) {
      return Diagnostic.Kind.WARNING;
    }
    environment.getMessager().printMessage(Diagnostic.Kind.ERROR,
        "Shardwise: -A" + UNRESOLVED_ENTITY_OPTION + "=" + value + " is not understood; use"
            + " error (the default) or warning.");
    return Diagnostic.Kind.ERROR;
  }

  private static int maxErrors(ProcessingEnvironment environment) {
    String value = environment.getOptions().get(MAX_ERRORS_OPTION);
    if (value == null) {
      return Reporter.DEFAULT_SHOWN;
    }
    try {
      int parsed = Integer.parseInt(value.strip());
      if (parsed > 0) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    environment.getMessager().printMessage(Diagnostic.Kind.ERROR, "Shardwise: -A" + MAX_ERRORS_OPTION
        + "=" + value + " is not understood; use a positive number (the default is "
        + Reporter.DEFAULT_SHOWN + ").");
    return Reporter.DEFAULT_SHOWN;
  }

  @Override
  public Set<String> getSupportedOptions() {
    return Set.of(UNRESOLVED_ENTITY_OPTION, MAX_ERRORS_OPTION);
  }

  /** The tree API, or null where the compiler is not javac (method bodies are then skipped). */
  private static Trees treesOf(ProcessingEnvironment environment) {
    try {
      return Trees.instance(environment);
    } catch (IllegalArgumentException | LinkageError e) {
      return null;
    }
  }

  @Override
  public Set<String> getSupportedAnnotationTypes() {
    // Every type: queries hide in method bodies of classes that carry no annotation at all.
    return Set.of("*");
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    if (round.processingOver()) {
      reporter.writeReport();
      writeRoutingMetadata(round);
      return false;
    }
    List<TypeElement> types = new ArrayList<>();
    for (Element root : round.getRootElements()) {
      collectTypes(root, types);
    }
    for (TypeElement type : types) {
      if (Mirrors.has(type, Mirrors.ENTITY)) {
        model.register(type);
      }
    }
    for (TypeElement type : types) {
      try {
        EntityModel.Entity entity = model.entity(type);
        if (entity != null) {
          modelChecks.check(entity);
          keyPathChecks.check(entity);
          routing.add(entity);
        }
        modelChecks.checkSnowflakeIds(type);
        modelChecks.checkGeneratedShardKeys(type);
        queryChecks.checkAnnotations(type);
        springDataChecks.check(type);
        if (type.getNestingKind() == javax.lang.model.element.NestingKind.TOP_LEVEL) {
          queryChecks.checkBodies(type);
        }
      } catch (RuntimeException e) {
        processingEnv.getMessager().printMessage(Diagnostic.Kind.WARNING,
            "Shardwise could not check " + type + " (" + e + "); please report this.", type);
      }
    }
    return false;
  }

  /**
   * Writes the routing metadata and the entity index once, after the last round, and only when no
   * round reported an error: a model with errors must not reach the runtime as if it had been
   * checked.
   */
  private void writeRoutingMetadata(RoundEnvironment round) {
    if (reporter.errorCount() > 0 || round.errorRaised() || routing.isEmpty()) {
      return;
    }
    try {
      routing.write(processingEnv.getFiler());
    } catch (java.io.IOException e) {
      processingEnv.getMessager().printMessage(Diagnostic.Kind.WARNING,
          "Shardwise could not write " + RoutingMetadataWriter.RESOURCE + " (" + e
              + "); the runtime reads the entities by reflection instead.");
    }
    try {
      index.write(model.compiledEntities());
    } catch (java.io.IOException e) {
      processingEnv.getMessager().printMessage(Diagnostic.Kind.WARNING,
          "Shardwise could not write the entity index " + EntityIndex.DIRECTORY + " (" + e
              + "); compilations against these classes that name their entities will report"
              + " them as unresolved.");
    }
  }

  private static void collectTypes(Element element, List<TypeElement> into) {
    if (element instanceof TypeElement) {
      into.add((TypeElement) element);
      for (Element enclosed : element.getEnclosedElements()) {
        collectTypes(enclosed, into);
      }
    }
  }
}
