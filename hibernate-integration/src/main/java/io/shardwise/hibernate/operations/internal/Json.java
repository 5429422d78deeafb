package io.shardwise.hibernate.operations.internal;

/** A minimal JSON writer for the operations page's state: objects, arrays, strings, numbers. */
final class Json {
  private final StringBuilder out = new StringBuilder(16 * 1024);
  private boolean needsComma;

  Json beginObject() {
    return open('{');
  }

  Json endObject() {
    return close('}');
  }

  Json beginArray() {
    return open('[');
  }

  Json endArray() {
    return close(']');
  }

  private Json open(char bracket) {
    separate();
    out.append(bracket);
    needsComma = false;
    return this;
  }

  private Json close(char bracket) {
    out.append(bracket);
    needsComma = true;
    return this;
  }

  /** The name of the next member; follow it with a value, an object or an array. */
  Json name(String name) {
    separate();
    string(name);
    out.append(':');
    needsComma = false;
    return this;
  }

  Json value(String value) {
    separate();
    if (value == null) {
      out.append("null");
    } else {
      string(value);
    }
    needsComma = true;
    return this;
  }

  Json value(long value) {
    return literal(Long.toString(value));
  }

  Json value(double value) {
    return literal(Double.isFinite(value) ? Double.toString(value) : "null");
  }

  Json value(boolean value) {
    return literal(Boolean.toString(value));
  }

  private Json literal(String text) {
    separate();
    out.append(text);
    needsComma = true;
    return this;
  }

  Json member(String name, String value) {
    return name(name).value(value);
  }

  Json member(String name, long value) {
    return name(name).value(value);
  }

  Json member(String name, double value) {
    return name(name).value(value);
  }

  Json member(String name, boolean value) {
    return name(name).value(value);
  }

  private void separate() {
    if (needsComma) {
      out.append(',');
      needsComma = false;
    }
  }

  private void string(String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
