package io.shardwise.architecture;

import static org.junit.jupiter.api.Assertions.fail;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The public API of the published modules, recorded in {@code api/*.api} at the repository's root
 * and compared with the compiled classes on every build. A public or protected type or member of a
 * package that is not {@code ..internal..} is API (docs/architecture.md, "Public API"); a change to
 * one fails this test until the record is regenerated and CHANGELOG.md names the new fingerprint, so
 * an API change never lands without its changelog entry.
 *
 * <p>Regenerate with {@code mvn -pl architecture-tests -am test -Dtest=PublicApiTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Drecord.api=true}, then describe the change under
 * {@code [Unreleased]} in CHANGELOG.md together with the fingerprint line the test prints.
 */
class PublicApiTest {
  /** Package prefix → the artifact whose API it is. Unpublished modules (samples, benchmarks) are absent. */
  private static final Map<String, String> PUBLISHED = Map.of(
      "io.shardwise.annotations", "shardwise-annotations",
      "io.shardwise.queryrules", "shardwise-query-rules",
      "io.shardwise.processor", "shardwise-processor",
      "io.shardwise.testkit", "shardwise-testkit",
      "io.shardwise.hibernate", "shardwise-hibernate",
      "io.shardwise.advisor", "shardwise-advisor",
      "io.shardwise.cli", "shardwise-cli",
      "io.shardwise.spring", "shardwise-spring-boot-autoconfigure");

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path RECORDED = ROOT.resolve("api");

  @Test
  void publicApiIsTheRecordedOne() throws IOException {
    Map<String, String> current = currentApi();
    if (Boolean.getBoolean("record.api")) {
      record(current);
    }
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> artifact : current.entrySet()) {
      Path file = RECORDED.resolve(artifact.getKey() + ".api");
      String recorded = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
      if (!recorded.equals(artifact.getValue())) {
        problems.add(artifact.getKey() + ": " + difference(recorded, artifact.getValue()));
      }
    }
    if (!problems.isEmpty()) {
      fail("The public API changed:\n" + String.join("\n", problems) + "\nIf the change is meant, record it:"
          + " mvn -pl architecture-tests -am test -Dtest=PublicApiTest -Dsurefire.failIfNoSpecifiedTests=false"
          + " -Drecord.api=true, and describe it in CHANGELOG.md under [Unreleased].");
    }
    String fingerprint = fingerprint(current);
    String changelog = Files.readString(ROOT.resolve("CHANGELOG.md"), StandardCharsets.UTF_8);
    if (!changelog.contains("API fingerprint: `" + fingerprint + "`")) {
      fail("The recorded public API is not the one CHANGELOG.md describes: describe the API change under"
          + " [Unreleased] in CHANGELOG.md and replace its fingerprint line with: API fingerprint: `"
          + fingerprint + "`");
    }
  }

  private static void record(Map<String, String> current) throws IOException {
    Files.createDirectories(RECORDED);
    for (Map.Entry<String, String> artifact : current.entrySet()) {
      Files.writeString(RECORDED.resolve(artifact.getKey() + ".api"), artifact.getValue(), StandardCharsets.UTF_8);
    }
  }

  /** Artifact → its API, one line per type and per member, sorted: stable across builds and JDKs. */
  static Map<String, String> currentApi() {
    Map<String, Set<String>> lines = new TreeMap<>();
    for (JavaClass type : new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(PUBLISHED.keySet())) {
      Optional<String> artifact = artifactOf(type);
      if (artifact.isEmpty() || !isApi(type)) {
        continue;
      }
      Set<String> own = lines.computeIfAbsent(artifact.get(), a -> new TreeSet<>());
      own.add(describe(type));
      for (JavaMember member : type.getMembers()) {
        if (visible(member.getModifiers(), type) && !isSynthetic(member)) {
          own.add(type.getName() + " " + describe(member));
        }
      }
    }
    Map<String, String> api = new TreeMap<>();
    lines.forEach((artifact, own) -> api.put(artifact, String.join("\n", own) + "\n"));
    return api;
  }

  private static Optional<String> artifactOf(JavaClass type) {
    return PUBLISHED.entrySet().stream()
        .filter(p -> type.getPackageName().equals(p.getKey()) || type.getPackageName().startsWith(p.getKey() + "."))
        .map(Map.Entry::getValue)
        .findFirst();
  }

  private static boolean isApi(JavaClass type) {
    if (type.getPackageName().contains(".internal") || type.isAnonymousClass() || type.isLocalClass()) {
      return false;
    }
    for (Optional<JavaClass> t = Optional.of(type); t.isPresent(); t = t.get().getEnclosingClass()) {
      if (!t.get().getModifiers().contains(JavaModifier.PUBLIC)) {
        return false;
      }
    }
    return true;
  }

  private static boolean visible(Set<JavaModifier> modifiers, JavaClass owner) {
    return modifiers.contains(JavaModifier.PUBLIC)
        || (modifiers.contains(JavaModifier.PROTECTED) && !owner.getModifiers().contains(JavaModifier.FINAL));
  }

  private static boolean isSynthetic(JavaMember member) {
    return member.getModifiers().contains(JavaModifier.SYNTHETIC) || member.getModifiers().contains(JavaModifier.BRIDGE);
  }

  private static String describe(JavaClass type) {
    String kind = type.isAnnotation() ? "@interface" : type.isInterface() ? "interface"
        : type.isEnum() ? "enum" : type.isRecord() ? "record" : "class";
    StringBuilder line = new StringBuilder(type.getName()).append(" : ").append(modifiers(type.getModifiers()))
        .append(kind);
    type.getRawSuperclass().filter(s -> !s.getName().equals("java.lang.Object") && !s.getName().equals("java.lang.Enum")
        && !s.getName().equals("java.lang.Record")).ifPresent(s -> line.append(" extends ").append(s.getName()));
    String interfaces = type.getRawInterfaces().stream().map(JavaClass::getName).sorted()
        .filter(i -> !i.equals("java.lang.annotation.Annotation")).collect(Collectors.joining(", "));
    if (!interfaces.isEmpty()) {
      line.append(" implements ").append(interfaces);
    }
    return line.toString();
  }

  private static String describe(JavaMember member) {
    StringBuilder line = new StringBuilder(modifiers(member.getModifiers()));
    if (member instanceof JavaField field) {
      return line.append(name(field.getRawType())).append(' ').append(field.getName()).toString();
    }
    JavaCodeUnit code = (JavaCodeUnit) member;
    if (!code.isConstructor()) {
      line.append(name(code.getRawReturnType())).append(' ');
    }
    line.append(code.isConstructor() ? "<init>" : code.getName()).append('(')
        .append(code.getRawParameterTypes().stream().map(PublicApiTest::name).collect(Collectors.joining(", ")))
        .append(')');
    String thrown = code.getThrowsClause().getTypes().stream().map(JavaClass::getName).sorted()
        .collect(Collectors.joining(", "));
    if (!thrown.isEmpty()) {
      line.append(" throws ").append(thrown);
    }
    if (code instanceof JavaMethod method) {
      method.getDefaultValue().ifPresent(value -> line.append(" default ").append(defaultValue(value)));
    }
    return line.toString();
  }

  private static String name(JavaClass type) {
    return type.isArray() ? name(type.getComponentType()) + "[]" : type.getName();
  }

  private static String defaultValue(Object value) {
    if (value instanceof Object[] array) {
      return Arrays.stream(array).map(PublicApiTest::defaultValue).collect(Collectors.joining(", ", "{", "}"));
    }
    if (value instanceof JavaClass type) {
      return name(type) + ".class";
    }
    return String.valueOf(value);
  }

  private static String modifiers(Set<JavaModifier> modifiers) {
    StringBuilder text = new StringBuilder();
    for (JavaModifier modifier : List.of(JavaModifier.PUBLIC, JavaModifier.PROTECTED, JavaModifier.ABSTRACT,
        JavaModifier.STATIC, JavaModifier.FINAL)) {
      if (modifiers.contains(modifier)) {
        text.append(modifier.name().toLowerCase()).append(' ');
      }
    }
    return text.toString();
  }

  private static String difference(String recorded, String current) {
    Set<String> before = new TreeSet<>(recorded.lines().toList());
    Set<String> after = new TreeSet<>(current.lines().toList());
    List<String> changes = new ArrayList<>();
    before.stream().filter(l -> !after.contains(l)).forEach(l -> changes.add("  - " + l));
    after.stream().filter(l -> !before.contains(l)).forEach(l -> changes.add("  + " + l));
    return changes.size() + " line(s) differ\n" + changes.stream().limit(40).collect(Collectors.joining("\n"))
        + (changes.size() > 40 ? "\n  ... and " + (changes.size() - 40) + " more" : "");
  }

  static String fingerprint(Map<String, String> api) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      api.forEach((artifact, text) -> digest.update((artifact + "\n" + text).getBytes(StandardCharsets.UTF_8)));
      return HexFormat.of().formatHex(digest.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
