package io.shardwise.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The statements of a SQL script, each with the line it starts on, and the little of an
 * {@code INSERT} that routing needs: its table, its column list, and each row's values as text
 * with their place in the statement (so that a multi-row {@code VALUES} can be split by shard).
 * Comments are dropped; strings, quoted identifiers and dollar-quoted bodies are kept whole.
 */
final class SeedStatements {

  /** One statement of a script; {@code where()} is {@code location:line}. */
  record Statement(String sql, String location, int line) {
    String where() {
      return location + ":" + line;
    }

    Statement withSql(String rewritten) {
      return new Statement(rewritten, location, line);
    }
  }

  private SeedStatements() {}

  static List<Statement> split(String script, String location, String separator) {
    List<Statement> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int line = 1;
    int startLine = -1;
    int i = 0;
    while (i < script.length()) {
      char c = script.charAt(i);
      if (script.startsWith("--", i)) {
        while (i < script.length() && script.charAt(i) != '\n') {
          i++;
        }
        continue;
      }
      if (script.startsWith("/*", i)) {
        int end = script.indexOf("*/", i + 2);
        end = end < 0 ? script.length() : end + 2;
        line += count(script, i, end);
        current.append(' ');
        i = end;
        continue;
      }
      if (script.startsWith(separator, i)) {
        add(statements, current, location, startLine);
        current.setLength(0);
        startLine = -1;
        i += separator.length();
        continue;
      }
      int end = i + 1;
      if (c == '\'' || c == '"') {
        end = closing(script, i, String.valueOf(c));
      } else if (c == '$') {
        int tagEnd = script.indexOf('$', i + 1);
        String tag = tagEnd > 0 ? script.substring(i, tagEnd + 1) : "";
        if (tag.matches("\\$[A-Za-z_]*\\$")) {
          int close = script.indexOf(tag, tagEnd + 1);
          end = close < 0 ? script.length() : close + tag.length();
        }
      }
      if (startLine < 0 && !Character.isWhitespace(c)) {
        startLine = line;
      }
      line += count(script, i, end);
      current.append(script, i, end);
      i = end;
    }
    add(statements, current, location, startLine);
    return statements;
  }

  private static void add(List<Statement> statements, StringBuilder sql, String location, int line) {
    String text = sql.toString().strip();
    if (!text.isEmpty()) {
      statements.add(new Statement(text, location, line));
    }
  }

  /** The index after the quote that closes the one at {@code start}; a doubled quote is part of the text. */
  private static int closing(String script, int start, String quote) {
    int i = start + 1;
    while (i < script.length()) {
      if (script.startsWith(quote, i)) {
        if (script.startsWith(quote, i + 1)) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    return script.length();
  }

  private static int count(String text, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      if (text.charAt(i) == '\n') {
        n++;
      }
    }
    return n;
  }

  // ---------------------------------------------------------------------------------------------
  // Tokens
  // ---------------------------------------------------------------------------------------------

  enum Kind { WORD, QUOTED_NAME, STRING, NUMBER, SYMBOL }

  /** {@code value}: a word lower-cased, a quoted name or string without its quotes, else the text. */
  record Token(Kind kind, String value, int start, int end) {
    boolean is(String word) {
      return (kind == Kind.WORD || kind == Kind.SYMBOL) && value.equals(word);
    }
  }

  static List<Token> tokens(String sql) {
    List<Token> tokens = new ArrayList<>();
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '\'' || c == '"') {
        int end = closing(sql, i, String.valueOf(c));
        String inner = sql.substring(i + 1, Math.max(i + 1, end - 1)).replace(c + "" + c, String.valueOf(c));
        tokens.add(new Token(c == '\'' ? Kind.STRING : Kind.QUOTED_NAME, inner, i, end));
        i = end;
      } else if (Character.isLetter(c) || c == '_') {
        int end = i;
        while (end < sql.length() && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_'
            || sql.charAt(end) == '$')) {
          end++;
        }
        tokens.add(new Token(Kind.WORD, sql.substring(i, end).toLowerCase(Locale.ROOT), i, end));
        i = end;
      } else if (Character.isDigit(c)) {
        int end = i;
        while (end < sql.length() && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '.')) {
          end++;
        }
        tokens.add(new Token(Kind.NUMBER, sql.substring(i, end), i, end));
        i = end;
      } else if (sql.startsWith("::", i)) {
        tokens.add(new Token(Kind.SYMBOL, "::", i, i + 2));
        i += 2;
      } else {
        tokens.add(new Token(Kind.SYMBOL, String.valueOf(c), i, i + 1));
        i++;
      }
    }
    return tokens;
  }
}
