package io.shardwise.advisor;

import io.shardwise.advisor.JpaModel.Attribute;
import io.shardwise.advisor.JpaModel.DeclaredQuery;
import io.shardwise.advisor.JpaModel.Entity;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How often each declared query ran, from {@code pg_stat_statements} or a {@link QueryLog}: a JPQL query and the SQL
 * Hibernate made of it match when they read the same tables and compare the same columns in their
 * WHERE clauses. A query no statement matches gets no calls (it did not run since the counters
 * were reset); names are compared in lower case without underscores, so either naming strategy
 * matches; statements no query matches (native SQL, criteria) are left out of the share.
 */
final class CallWeights {
  private static final Pattern HQL_SOURCE = Pattern.compile(
      "(?i)\\b(?:from|join(?:\\s+fetch)?)\\s+([A-Za-z_][\\w.$]*)(?:\\s+(?:as\\s+)?([A-Za-z_]\\w*))?");
  private static final Pattern HQL_COMPARED = Pattern.compile(
      "(?<![\\w.])([A-Za-z_]\\w*)((?:\\.[A-Za-z_]\\w*)+)\\s*(?:=|<>|<|>|\\s(?i:in|like)\\b)");
  private static final Pattern SQL_TABLE = Pattern.compile("(?i)\\b(?:from|join|update|into)\\s+\"?([\\w.]+)\"?");
  private static final Pattern SQL_COMPARED = Pattern.compile(
      "(?i)(?:\\b\\w+\\.)?\"?(\\w+)\"?\\s*(?:=|<>|<|>|\\s(?:in|like)\\b|=\\s*any)");
  private static final Set<String> ALIAS_WORDS = Set.of("where", "join", "left", "inner", "order", "group", "on",
      "fetch", "set", "outer", "right", "cross", "full", "having", "union", "limit");

  private final JpaModel model;
  private final Map<String, Long> callsBySignature = new HashMap<>();

  private final String source;
  private long allCalls;

  /** @param source where the counts come from, as the report names it */
  CallWeights(JpaModel model, List<DatabaseStatistics.StatementCalls> statements, String source) {
    this.model = model;
    this.source = source;
    for (DatabaseStatistics.StatementCalls statement : statements) {
      callsBySignature.merge(sqlSignature(statement.query()), statement.calls(), Long::sum);
      allCalls += statement.calls();
    }
  }

  /** Where the counts come from, and how many of the calls a declared query matched. */
  String describe() {
    Set<String> declared = new HashSet<>();
    for (DeclaredQuery query : model.queries()) {
      declared.add(hqlSignature(query));
    }
    long matched = callsBySignature.entrySet().stream().filter(e -> declared.contains(e.getKey()))
        .mapToLong(Map.Entry::getValue).sum();
    return String.format(Locale.ROOT, "%s (%,d of %,d calls matched a declared query)", source, matched, allCalls);
  }

  long calls(DeclaredQuery query) {
    String signature = hqlSignature(query);
    return signature == null ? 0 : callsBySignature.getOrDefault(signature, 0L);
  }

  /** Tables read, then columns compared in the WHERE clause, each sorted: {@code owners|last_name}. */
  static String sqlSignature(String sql) {
    Set<String> tables = new TreeSet<>();
    Matcher table = SQL_TABLE.matcher(sql);
    while (table.find()) {
      String name = table.group(1).toLowerCase(Locale.ROOT).replace("_", "");
      tables.add(name.substring(name.lastIndexOf('.') + 1));
    }
    Set<String> columns = new TreeSet<>();
    int where = sql.toLowerCase(Locale.ROOT).indexOf(" where ");
    if (where >= 0) {
      Matcher column = SQL_COMPARED.matcher(sql.substring(where));
      while (column.find()) {
        columns.add(column.group(1).toLowerCase(Locale.ROOT).replace("_", ""));
      }
    }
    return String.join(",", tables) + "|" + String.join(",", columns);
  }

  String hqlSignature(DeclaredQuery query) {
    String text = query.text();
    Map<String, Entity> aliases = new HashMap<>();
    Set<String> tables = new TreeSet<>();
    Matcher source = HQL_SOURCE.matcher(text);
    while (source.find()) {
      String name = source.group(1);
      Entity entity = model.entity(name);
      int dot = name.indexOf('.');
      if (entity == null && dot > 0 && aliases.containsKey(name.substring(0, dot))) {
        Attribute attribute = aliases.get(name.substring(0, dot)).attribute(name.substring(dot + 1));
        entity = attribute == null ? null : model.target(attribute);
      }
      if (entity == null) {
        continue;
      }
      tables.add(entity.table.toLowerCase(Locale.ROOT).replace("_", ""));
      String alias = source.group(2);
      if (alias != null && !ALIAS_WORDS.contains(alias.toLowerCase(Locale.ROOT))) {
        aliases.put(alias, entity);
      }
    }
    if (tables.isEmpty() && query.implicitRoot() != null) {
      tables.add(query.implicitRoot().table.toLowerCase(Locale.ROOT).replace("_", ""));
    }
    Set<String> columns = new TreeSet<>();
    int where = text.toLowerCase(Locale.ROOT).indexOf(" where ");
    if (where >= 0) {
      Matcher compared = HQL_COMPARED.matcher(text.substring(where));
      while (compared.find()) {
        Entity entity = aliases.get(compared.group(1));
        if (entity == null) {
          continue;
        }
        String[] path = compared.group(2).substring(1).split("\\.");
        Attribute first = entity.attribute(path[0]);
        if (first == null) {
          continue;
        }
        if (first.kind() == JpaModel.Kind.TO_ONE && first.column() != null && (path.length == 1
            || path.length == 2 && model.target(first) != null && model.target(first).id != null
                && model.target(first).id.name().equals(path[1]))) {
          columns.add(first.column().toLowerCase(Locale.ROOT).replace("_", ""));
        } else if (first.kind() == JpaModel.Kind.BASIC && path.length == 1) {
          columns.add(first.column().toLowerCase(Locale.ROOT).replace("_", ""));
        } else {
          return null;
        }
      }
    }
    return tables.isEmpty() ? null : String.join(",", tables) + "|" + String.join(",", columns);
  }
}
