package io.shardwise.processor;

import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.Trees;
import java.util.HashSet;
import java.util.Set;
import javax.annotation.processing.Messager;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.tools.Diagnostic;

/**
 * The one place errors leave the processor. Every error names an element (and, where there is
 * one, the annotation or annotation value, or the tree of a string literal), starts with its
 * {@link Tag}, and is reported once even when two checks reach the same culprit (an attribute
 * inherited by two entities, say). Reporting never stops the checks.
 */
final class Reporter {

  private final Messager messager;
  private final Set<String> reported = new HashSet<>();
  private int errors;

  Reporter(Messager messager) {
    this.messager = messager;
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
    count(kind);
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
    count(kind);
    trees.printMessage(kind, text, tree, unit);
  }

  /** A problem of the processor's own (an unreadable index, say), not of the user's code. */
  void warning(String message) {
    if (firstTime(message)) {
      messager.printMessage(Diagnostic.Kind.WARNING, "Shardwise: " + message);
    }
  }

  private void count(Diagnostic.Kind kind) {
    if (kind == Diagnostic.Kind.ERROR) {
      errors++;
    }
  }

  int errorCount() {
    return errors;
  }

  private boolean firstTime(String key) {
    return reported.add(key);
  }
}
