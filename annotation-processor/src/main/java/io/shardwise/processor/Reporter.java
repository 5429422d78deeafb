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
    String text = tag.bracketed() + " " + message;
    if (!firstTime(System.identityHashCode(element) + "|" + element + "|" + text)) {
      return;
    }
    errors++;
    if (value != null) {
      messager.printMessage(Diagnostic.Kind.ERROR, text, element, annotation, value);
    } else if (annotation != null) {
      messager.printMessage(Diagnostic.Kind.ERROR, text, element, annotation);
    } else {
      messager.printMessage(Diagnostic.Kind.ERROR, text, element);
    }
  }

  /** An error at a tree inside a method body, such as the string literal passed to createQuery. */
  void error(Tag tag, Trees trees, Tree tree, CompilationUnitTree unit, String message) {
    String text = tag.bracketed() + " " + message;
    if (!firstTime(System.identityHashCode(tree) + "|" + text)) {
      return;
    }
    errors++;
    trees.printMessage(Diagnostic.Kind.ERROR, text, tree, unit);
  }

  int errorCount() {
    return errors;
  }

  private boolean firstTime(String key) {
    return reported.add(key);
  }
}
