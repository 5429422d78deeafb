package io.shardwise.advisor;

import java.util.Collection;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/** A small JSON writer for the advice: maps, lists, strings, numbers, booleans and null. */
final class Json {
  private Json() {}

  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out, 0);
    return out.append('\n').toString();
  }

  private static void write(Object value, StringBuilder out, int depth) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String s) {
      string(s, out);
    } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
      out.append(value);
    } else if (value instanceof Number n) {
      double d = Math.round(n.doubleValue() * 1e6) / 1e6;
      out.append(!Double.isFinite(d) ? "null" : d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d));
    } else if (value instanceof Map<?, ?> map) {
      container('{', '}', map.entrySet(), out, depth, (entry, o, d) -> {
        string(String.valueOf(((Map.Entry<?, ?>) entry).getKey()), o);
        o.append(": ");
        write(((Map.Entry<?, ?>) entry).getValue(), o, d);
      });
    } else if (value instanceof Collection<?> list) {
      container('[', ']', list, out, depth, Json::write);
    } else {
      string(value.toString(), out);
    }
  }

  private interface Element {
    void write(Object element, StringBuilder out, int depth);
  }

  private static void container(char open, char close, Collection<?> items, StringBuilder out, int depth,
      Element element) {
    out.append(open);
    if (items.isEmpty()) {
      out.append(close);
      return;
    }
    Iterator<?> it = items.iterator();
    while (it.hasNext()) {
      out.append('\n').append("  ".repeat(depth + 1));
      element.write(it.next(), out, depth + 1);
      if (it.hasNext()) {
        out.append(',');
      }
    }
    out.append('\n').append("  ".repeat(depth)).append(close);
  }

  private static void string(String s, StringBuilder out) {
    out.append('"');
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }
}
