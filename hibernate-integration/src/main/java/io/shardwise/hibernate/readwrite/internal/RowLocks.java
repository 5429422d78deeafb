package io.shardwise.hibernate.readwrite.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Finds PostgreSQL row-locking clauses in SQL, ignoring string literals, quoted names and comments. */
final class RowLocks {
  private static final Pattern LOCK = Pattern.compile(
      "\\bfor\\s+(no\\s+key\\s+update|update|key\\s+share|share)\\b", Pattern.CASE_INSENSITIVE);
  private static final Pattern TABLE = Pattern.compile("\\b(?:from|join)\\s+([a-z_][a-z0-9_$.]*)", Pattern.CASE_INSENSITIVE);

  private static final Pattern ANY_TABLE = Pattern.compile("\\b(?:from|join|into|update)\\s+([a-z_][a-z0-9_$.]*)",
      Pattern.CASE_INSENSITIVE);


  /** Lock-free SQL seen before: a few thousand statements, at most 1M characters (about 2 MB), then no more. */
  private static final KnownLockFree LOCK_FREE = new KnownLockFree(4_096, 1L << 20);

  private RowLocks() {}

  /**
   * The locking clause, upper-cased (e.g. {@code FOR NO KEY UPDATE}), or null when the SQL locks no rows.
   * SQL once found lock-free is remembered (bounded, see {@link KnownLockFree}) and not scanned again.
   */
  static String lockClause(String sql) {
    return lockClause(sql, LOCK_FREE);
  }

  static String lockClause(String sql, KnownLockFree lockFree) {
    if (sql == null || sql.length() < 10 || lockFree.contains(sql)) {
      return null;
    }
    String plain = withoutLiterals(sql);
    Matcher m = LOCK.matcher(plain);
    if (!m.find()) {
      lockFree.add(sql);
      return null;
    }
    return m.group().replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
  }

  /** Tables named after FROM or JOIN, lower-cased and without schema. */
  static List<String> tables(String sql) {
    List<String> tables = new ArrayList<>();
    Matcher m = TABLE.matcher(withoutLiterals(sql));
    while (m.find()) {
      String name = m.group(1).toLowerCase(Locale.ROOT);
      tables.add(name.substring(name.lastIndexOf('.') + 1));
    }
    return tables;
  }

  /** Tables a statement reads or writes: after FROM, JOIN, INTO and UPDATE; lower-cased and without schema. */
  static List<String> writtenOrReadTables(String sql) {
    List<String> tables = new ArrayList<>();
    Matcher m = ANY_TABLE.matcher(withoutLiterals(sql));
    while (m.find()) {
      String name = m.group(1).toLowerCase(Locale.ROOT);
      tables.add(name.substring(name.lastIndexOf('.') + 1));
    }
    return tables;
  }

  /** Blanks out '...' literals, "..." identifiers' quotes, -- and block comments, keeping the rest. */
  static String withoutLiterals(String sql) {
    StringBuilder out = new StringBuilder(sql.length());
    int i = 0;
    int n = sql.length();
    while (i < n) {
      char c = sql.charAt(i);
      if (c == '\'') {
        int end = i + 1;
        while (end < n && !(sql.charAt(end) == '\'' && (end + 1 >= n || sql.charAt(end + 1) != '\''))) {
          end += sql.charAt(end) == '\'' ? 2 : 1;
        }
        out.append(' ');
        i = end + 1;
      } else if (c == '"') {
        int end = sql.indexOf('"', i + 1);
        end = end < 0 ? n : end;
        out.append(sql, i + 1, end);
        i = end + 1;
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? n : end;
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        out.append(' ');
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }
}
