package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.resharding.ReshardTable;
import io.shardwise.spring.boot.autoconfigure.SeedStatements.Kind;
import io.shardwise.spring.boot.autoconfigure.SeedStatements.Statement;
import io.shardwise.spring.boot.autoconfigure.SeedStatements.Token;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * Decides where each statement of a seed (data) script runs, before any runs: an {@code INSERT} into
 * a sharded entity's table on the shard of each row's key column value (a multi-row {@code VALUES}
 * split into one statement per shard, its {@code ON CONFLICT} / {@code RETURNING} tail kept); an
 * {@code INSERT}, {@code UPDATE} or {@code DELETE} of a reference table (or of a collection table
 * of a reference entity) on every shard. Every other statement is a problem, and one problem refuses
 * the whole script with every problem listed, each with its file and line.
 */
final class SeedRouting {
  private static final Set<String> SELECT_END = Set.of("from", "where", "on", "returning", "union", "order", "limit",
      "group", "having", "except", "intersect");

  private final ShardedSessions shards;
  private final Map<String, ReshardTable> tables;
  private final Function<String, List<String>> columnsOf;
  private final String setting;

  /**
   * @param tables every routable table by its name (lower-case, without schema {@code public})
   * @param columnsOf a table's columns in order, for an INSERT that lists none
   * @param setting the property the scripts came from, for messages
   */
  SeedRouting(ShardedSessions shards, Map<String, ReshardTable> tables, Function<String, List<String>> columnsOf,
      String setting) {
    this.shards = shards;
    this.tables = tables;
    this.columnsOf = columnsOf;
    this.setting = setting;
  }

  /** The statements of each shard, in script order, or a refusal naming every statement that cannot be routed. */
  Map<String, List<Statement>> route(List<Statement> statements) {
    Map<String, List<Statement>> byShard = new LinkedHashMap<>();
    shards.shardIds().forEach(id -> byShard.put(id, new ArrayList<>()));
    List<String> problems = new ArrayList<>();
    for (Statement statement : statements) {
      try {
        routeOne(statement, byShard);
      } catch (Unroutable e) {
        problems.add(statement.where() + ": " + e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new ShardingConfigurationException(setting + ": nothing was run, because Shardwise cannot tell the shard of"
          + " these statements:\n  - " + String.join("\n  - ", problems) + "\nA seed script holds INSERTs whose"
          + " rows name their shard key, and statements on @ReferenceTable tables (run on every shard); put DDL and"
          + " other statements in spring.sql.init.schema-locations, which run on every shard.");
    }
    return byShard;
  }

  private static final class Unroutable extends Exception {
    Unroutable(String message) {
      super(message, null, false, false);
    }
  }

  private void routeOne(Statement statement, Map<String, List<Statement>> byShard) throws Unroutable {
    List<Token> tokens = SeedStatements.tokens(statement.sql());
    String verb = tokens.isEmpty() ? "" : tokens.get(0).value();
    int at;
    if (verb.equals("insert") && tokens.size() > 2 && tokens.get(1).is("into")) {
      at = 2;
    } else if (verb.equals("delete") && tokens.size() > 2 && tokens.get(1).is("from")) {
      at = 2;
    } else if (verb.equals("update") && tokens.size() > 1) {
      at = 1;
    } else {
      throw new Unroutable("\"" + abbreviated(statement.sql()) + "\" is no INSERT, UPDATE or DELETE of a table");
    }
    int afterName = nameEnd(tokens, at);
    String table = tableName(tokens, at, afterName);
    ReshardTable placement = tables.get(table);
    if (placement == null) {
      throw new Unroutable(verb.toUpperCase(Locale.ROOT) + " of " + table + ", which is not the table of an entity"
          + " of this persistence unit (map it, with @ReferenceTable if every shard needs its rows)");
    }
    if (placement.isReference()) {
      byShard.values().forEach(list -> list.add(statement));
      return;
    }
    if (!verb.equals("insert")) {
      throw new Unroutable(verb.toUpperCase(Locale.ROOT) + " of the sharded table " + table + " would change rows of"
          + " every shard; seed rows with INSERTs that give their key column " + placement.keyColumn());
    }
    routeInsert(statement, tokens, afterName, placement, byShard);
  }

  private void routeInsert(Statement statement, List<Token> tokens, int at, ReshardTable table,
      Map<String, List<Statement>> byShard) throws Unroutable {
    if (at < tokens.size() && tokens.get(at).is("as")) {
      at += 2;
    }
    List<String> columns = new ArrayList<>();
    if (at < tokens.size() && tokens.get(at).is("(")) {
      at++;
      while (at < tokens.size() && !tokens.get(at).is(")")) {
        if (!tokens.get(at).is(",")) {
          columns.add(tokens.get(at).kind() == Kind.QUOTED_NAME ? tokens.get(at).value()
              : tokens.get(at).value().toLowerCase(Locale.ROOT));
        }
        at++;
      }
      at++;
    } else {
      columns = columnsOf.apply(table.name());
    }
    int key = columns.indexOf(table.keyColumn());
    if (key < 0) {
      throw new Unroutable("INSERT INTO " + table.name() + " gives no value for its shard key column "
          + table.keyColumn() + "; name the column and write its value");
    }
    if (at < tokens.size() && tokens.get(at).is("values")) {
      routeValues(statement, tokens, at + 1, table, key, byShard);
    } else if (at < tokens.size() && tokens.get(at).is("select")) {
      List<List<Token>> expressions = new ArrayList<>();
      int end = expressions(tokens, at + 1, expressions, true);
      if (end < tokens.size() && tokens.get(end).is("from")) {
        throw new Unroutable("INSERT INTO " + table.name() + " ... SELECT ... FROM copies rows whose keys the script"
            + " does not show; write the rows as VALUES with their key");
      }
      if (key >= expressions.size()) {
        throw new Unroutable("INSERT INTO " + table.name() + " selects fewer values than it names columns");
      }
      byShard.get(shardOf(expressions.get(key), table)).add(statement);
    } else {
      throw new Unroutable("INSERT INTO " + table.name() + " has neither VALUES nor a SELECT of values");
    }
  }

  private void routeValues(Statement statement, List<Token> tokens, int at, ReshardTable table, int key,
      Map<String, List<Statement>> byShard) throws Unroutable {
    String sql = statement.sql();
    String head = sql.substring(0, tokens.get(at - 1).end());
    Map<String, List<String>> rowsByShard = new LinkedHashMap<>();
    int tail = sql.length();
    while (at < tokens.size() && tokens.get(at).is("(")) {
      List<List<Token>> values = new ArrayList<>();
      int close = expressions(tokens, at + 1, values, false);
      if (key >= values.size()) {
        throw new Unroutable("a row of INSERT INTO " + table.name() + " has fewer values than the INSERT names columns");
      }
      rowsByShard.computeIfAbsent(shardOf(values.get(key), table), s -> new ArrayList<>())
          .add(sql.substring(tokens.get(at).start(), tokens.get(close).end()));
      at = close + 1;
      tail = at < tokens.size() ? tokens.get(at).start() : sql.length();
      if (at < tokens.size() && tokens.get(at).is(",")) {
        at++;
      } else {
        break;
      }
    }
    String rest = sql.substring(tail);
    for (Map.Entry<String, List<String>> rows : rowsByShard.entrySet()) {
      byShard.get(rows.getKey()).add(rowsByShard.size() == 1 ? statement
          : statement.withSql(head + " " + String.join(", ", rows.getValue()) + " " + rest));
    }
  }

  /**
   * Reads comma-separated expressions from {@code at} up to the closing parenthesis (returning its
   * index) or, for a SELECT list, up to a clause keyword at depth zero (returning its index).
   */
  private static int expressions(List<Token> tokens, int at, List<List<Token>> into, boolean selectList) {
    int depth = 0;
    List<Token> current = new ArrayList<>();
    for (; at < tokens.size(); at++) {
      Token t = tokens.get(at);
      if (depth == 0 && (selectList ? t.kind() == Kind.WORD && SELECT_END.contains(t.value()) || t.is(";")
          : t.is(")"))) {
        break;
      }
      if (depth == 0 && t.is(",")) {
        into.add(current);
        current = new ArrayList<>();
        continue;
      }
      depth += t.is("(") ? 1 : t.is(")") ? -1 : 0;
      current.add(t);
    }
    if (!current.isEmpty()) {
      into.add(current);
    }
    return at;
  }

  /** The shard of a key written as a literal: {@code 42}, {@code -7}, {@code 'abc'}, each optionally {@code ::type}. */
  private String shardOf(List<Token> expression, ReshardTable table) throws Unroutable {
    int i = 0;
    boolean negative = false;
    if (!expression.isEmpty() && expression.get(0).is("-")) {
      negative = true;
      i++;
    }
    boolean literal = i < expression.size() && (expression.get(i).kind() == Kind.NUMBER
        || expression.get(i).kind() == Kind.STRING && !negative)
        && (expression.size() == i + 1 || expression.get(i + 1).is("::"));
    String text = expression.stream().map(Token::value).reduce("", (a, b) -> a.isEmpty() ? b : a + " " + b);
    if (!literal) {
      throw new Unroutable("INSERT INTO " + table.name() + " gives its shard key column " + table.keyColumn()
          + " the value " + (text.isEmpty() ? "(none)" : text) + ", not a literal, so its shard is unknown; write the"
          + " key's value");
    }
    String value = (negative ? "-" : "") + expression.get(i).value();
    try {
      return switch (table.keyType()) {
        case LONG, INT, SHORT -> shards.shardFor(Long.parseLong(value));
        case STRING -> shards.shardFor((Object) value);
        case UUID -> shards.shardFor((Object) UUID.fromString(value));
      };
    } catch (IllegalArgumentException e) {
      throw new Unroutable("INSERT INTO " + table.name() + " gives its " + table.keyType() + " shard key column "
          + table.keyColumn() + " the value " + text + ", which is not one");
    }
  }

  private static int nameEnd(List<Token> tokens, int at) {
    int end = at + 1;
    while (end + 1 < tokens.size() && tokens.get(end).is(".")) {
      end += 2;
    }
    return end;
  }

  private static String tableName(List<Token> tokens, int from, int to) {
    StringBuilder name = new StringBuilder();
    for (int i = from; i < to && i < tokens.size(); i++) {
      name.append(tokens.get(i).value());
    }
    return normalized(name.toString());
  }

  /** A table's name as the routing table holds it: lower-case unless quoted, without the schema {@code public}. */
  static String normalized(String table) {
    return table.startsWith("public.") ? table.substring("public.".length()) : table;
  }

  private static String abbreviated(String sql) {
    String oneLine = sql.replaceAll("\\s+", " ");
    return oneLine.length() > 60 ? oneLine.substring(0, 57) + "..." : oneLine;
  }
}
