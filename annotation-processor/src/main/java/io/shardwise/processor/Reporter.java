package io.shardwise.processor;

import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.annotation.processing.Filer;
import javax.annotation.processing.Messager;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.StandardLocation;

/**
 * The one place errors leave the processor. Every error names an element (and, where there is
 * one, the annotation or annotation value, or the tree of a string literal), starts with its
 * {@link Tag}, and is reported once even when two checks reach the same culprit (an attribute
 * inherited by two entities, say). Reporting never stops the checks.
 *
 * <p><b>Every error reaches the user.</b> javac prints only the first 100 errors of a compilation
 * ({@code -Xmaxerrs}), counting everyone's. So the first {@link #DEFAULT_SHOWN} Shardwise errors
 * (or {@code -Ashardwise.maxErrors}) are printed on their lines; at the next one a single
 * {@link Tag#TooManyErrors} error names the report file, and the rest are only written there.
 * The report, written when the compilation ends, lists every Shardwise error of the compilation
 * with its file and line, the printed ones included.
 */
final class Reporter {

  /** How many errors are printed one by one by default: half of javac's default -Xmaxerrs. */
  static final int DEFAULT_SHOWN = 50;
  /** The report's name, in the source output directory (Maven: target/generated-sources/annotations). */
  static final String REPORT = "shardwise-errors.txt";

  private final Messager messager;
  private final Filer filer;
  private final Trees trees;
  private final int shown;
  private final Set<String> reported = new HashSet<>();
  private final List<String> all = new ArrayList<>();
  private FileObject report;
  private int errors;

  Reporter(Messager messager, Filer filer, Trees trees, int shown) {
    this.messager = messager;
    this.filer = filer;
    this.trees = trees;
    this.shown = shown;
  }

  void error(Tag tag, Element element, String message) {
    error(tag, element, null, null, message);
  }

  void error(Tag tag, Element element, AnnotationMirror annotation, String message) {
    error(tag, element, annotation, null, message);
  }

  void error(
      Tag tag,
      Element element,
      AnnotationMirror annotation,
      AnnotationValue value,
      String message) {
    report(Diagnostic.Kind.ERROR, tag, element, annotation, value, message);
  }

  /** An error, or a warning where the user downgraded this kind of problem. */
  void report(
      Diagnostic.Kind kind,
      Tag tag,
      Element element,
      AnnotationMirror annotation,
      AnnotationValue value,
      String message) {
    String text = tag.bracketed() + " " + message;
    if (!firstTime(System.identityHashCode(element) + "|" + element + "|" + text)) {
      return;
    }
    if (!admit(kind, text, () -> where(element, annotation, value))) {
      return;
    }
    if (value != null) {
      messager.printMessage(kind, text, element, annotation, value);
    } else if (annotation != null) {
      messager.printMessage(kind, text, element, annotation);
    } else {
      messager.printMessage(kind, text, element);
    }
  }

  /** An error at a tree inside a method body, such as the string literal passed to createQuery. */
  void error(Tag tag, Trees trees, Tree tree, CompilationUnitTree unit, String message) {
    report(Diagnostic.Kind.ERROR, tag, trees, tree, unit, message);
  }

  void report(
      Diagnostic.Kind kind, Tag tag, Trees trees, Tree tree, CompilationUnitTree unit,
      String message) {
    String text = tag.bracketed() + " " + message;
    if (!firstTime(System.identityHashCode(tree) + "|" + text)) {
      return;
    }
    if (!admit(kind, text, () -> where(unit, trees.getSourcePositions().getStartPosition(unit, tree)))) {
      return;
    }
    trees.printMessage(kind, text, tree, unit);
  }

  /** A problem of the processor's own (an unreadable index, say), not of the user's code. */
  void warning(String message) {
    if (firstTime(message)) {
      messager.printMessage(Diagnostic.Kind.WARNING, "Shardwise: " + message);
    }
  }

  /**
   * Counts an error and records it for the report; false when it must not be printed, because
   * the errors printed one by one reached their limit (the first such error prints the summary).
   */
  private boolean admit(Diagnostic.Kind kind, String text, java.util.function.Supplier<String> where) {
    if (kind != Diagnostic.Kind.ERROR) {
      return true;
    }
    errors++;
    all.add(where.get() + ": error: " + text);
    if (errors <= shown) {
      return true;
    }
    if (errors == shown + 1) {
      messager.printMessage(Diagnostic.Kind.ERROR, Tag.TooManyErrors.bracketed() + " Shardwise found"
          + " more than " + shown + " errors in this compilation. The first " + shown + " are printed"
          + " on their lines; javac prints no more than 100 errors in all (-Xmaxerrs), so the others"
          + " are not printed one by one: every Shardwise error of this compilation, with its file"
          + " and line, is listed in " + reportLocation() + " (written when the compilation ends)."
          + " Fix: work through that file, or raise -Ashardwise.maxErrors (and javac's -Xmaxerrs)"
          + " to print more of them here.");
    }
    return false;
  }

  private String reportLocation() {
    try {
      report = filer.createResource(StandardLocation.SOURCE_OUTPUT, "", REPORT);
      return report.toUri().getPath();
    } catch (IOException | IllegalStateException e) {
      report = null;
      return REPORT + " (which could not be created: " + e.getMessage() + ")";
    }
  }

  /** Writes the report, when some errors were not printed; once, when the compilation ends. */
  void writeReport() {
    if (report == null) {
      return;
    }
    try (Writer out = report.openWriter()) {
      out.write("# " + errors + " Shardwise errors; " + shown + " were printed by javac, all are"
          + " listed here.\n");
      for (String line : all) {
        out.write(line.replace('\n', ' '));
        out.write('\n');
      }
    } catch (IOException e) {
      messager.printMessage(Diagnostic.Kind.WARNING, "Shardwise could not write " + REPORT + " ("
          + e + "); raise -Ashardwise.maxErrors and -Xmaxerrs to print every error.");
    }
    messager.printMessage(Diagnostic.Kind.NOTE, "Shardwise: " + errors + " errors in all, listed in "
        + report.toUri().getPath());
    report = null;
  }

  private String where(Element element, AnnotationMirror annotation, AnnotationValue value) {
    if (trees == null) {
      return String.valueOf(element);
    }
    TreePath path = annotation == null ? trees.getPath(element) : trees.getPath(element, annotation, value);
    if (path == null) {
      return String.valueOf(element);
    }
    return where(path.getCompilationUnit(),
        trees.getSourcePositions().getStartPosition(path.getCompilationUnit(), path.getLeaf()));
  }

  private static String where(CompilationUnitTree unit, long position) {
    String file = unit.getSourceFile().getName();
    return position < 0 ? file : file + ":" + unit.getLineMap().getLineNumber(position);
  }

  int errorCount() {
    return errors;
  }

  private boolean firstTime(String key) {
    return reported.add(key);
  }
}
