package io.shardwise.hibernate.internal;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One {@code shardwise.*} setting as {@link SettingRegistry} defines it: the single place its
 * name, type, range, default, unit, scope and description are written. {@link ShardwiseConfig}
 * parses with it, the settings table of docs/routing.md is rendered from it, and the Spring
 * starter's properties are checked against it.
 *
 * @param name the key; a key with a variable part spells it in angle brackets ({@code shardwise.shard.<id>.url})
 * @param scope whether the key is one per unit, one per shard, or one per server role
 * @param type what kind of value the key takes
 * @param values the accepted values: the choices of a {@link Type#CHOICE}, a description of the text of a
 *     {@link Type#TEXT} or {@link Type#OBJECT}, or a constraint beyond the range of an {@link Type#INTEGER}; may be null
 * @param min the least value of an {@link Type#INTEGER}
 * @param max the greatest value of an {@link Type#INTEGER}
 * @param unit the unit of an {@link Type#INTEGER} ({@code ms}, {@code bytes}, {@code s}), or null
 * @param defaultValue the value used when the key is not set, as text; null when there is none or it is computed
 * @param shownDefault how the docs state the default when it is computed or needs a word of explanation; or null
 * @param description what the setting does, in the docs' words (Markdown)
 */
public record Setting(String name, Scope scope, Type type, String values, long min, long max, String unit,
    String defaultValue, String shownDefault, String description) {

  /** Where a setting applies. */
  public enum Scope { GLOBAL, PER_SHARD, PER_ROLE }

  /** The kinds of value a setting takes. */
  public enum Type { INTEGER, BOOLEAN, CHOICE, TEXT, OBJECT }

  static Setting integer(String name, long min, long max, long defaultValue, String unit, String description) {
    return new Setting(name, scopeOf(name), Type.INTEGER, null, min, max, unit, Long.toString(defaultValue), null,
        description);
  }

  static Setting flag(String name, boolean defaultValue, String description) {
    return new Setting(name, scopeOf(name), Type.BOOLEAN, null, 0, 0, null, Boolean.toString(defaultValue), null,
        description);
  }

  static Setting choice(String name, String defaultValue, String description, String... choices) {
    if (!List.of(choices).contains(defaultValue)) {
      throw new IllegalArgumentException(name + ": default " + defaultValue + " is not one of " + List.of(choices));
    }
    return new Setting(name, scopeOf(name), Type.CHOICE, String.join(",", choices), 0, 0, null, defaultValue, null,
        description);
  }

  static Setting text(String name, String values, String defaultValue, String description) {
    return new Setting(name, scopeOf(name), Type.TEXT, values, 0, 0, null, defaultValue, null, description);
  }

  static Setting object(String name, String values, String description) {
    return new Setting(name, scopeOf(name), Type.OBJECT, values, 0, 0, null, null, null, description);
  }

  private static Scope scopeOf(String name) {
    return name.startsWith("shardwise.shard.") ? Scope.PER_SHARD : Scope.GLOBAL;
  }

  /** The same, set per server role ({@code shardwise.primary.} / {@code shardwise.replica.}). */
  Setting perRole() {
    return new Setting(name, Scope.PER_ROLE, type, values, min, max, unit, defaultValue, shownDefault, description);
  }

  /** The same with a constraint the range does not say (e.g. "a power of two"). */
  Setting note(String constraint) {
    return new Setting(name, scope, type, constraint, min, max, unit, defaultValue, shownDefault, description);
  }

  /** The same with the default as the docs state it. */
  Setting shown(String text) {
    return new Setting(name, scope, type, values, min, max, unit, defaultValue, text, description);
  }

  /** The same without a fixed default: the parse computes it, the docs say how ({@code text}). */
  Setting computed(String text) {
    return new Setting(name, scope, type, values, min, max, unit, null, text, description);
  }

  /** Whether the name has a variable part ({@code <id>}), so that it is a pattern rather than a key. */
  public boolean isPattern() {
    return name.indexOf('<') >= 0;
  }

  /** The default of an {@link Type#INTEGER} with a fixed default. */
  public int defaultInt() {
    if (type != Type.INTEGER || defaultValue == null) {
      throw new IllegalStateException(name + " has no fixed integer default");
    }
    return Integer.parseInt(defaultValue);
  }

  /** The default of a {@link Type#BOOLEAN}. */
  public boolean defaultBoolean() {
    if (type != Type.BOOLEAN) {
      throw new IllegalStateException(name + " is not a boolean");
    }
    return Boolean.parseBoolean(defaultValue);
  }

  /** The choices of a {@link Type#CHOICE}. */
  public List<String> choices() {
    return type == Type.CHOICE ? List.of(values.split(",")) : List.of();
  }

  /** The type column of the docs' table. */
  public String typeText() {
    return switch (type) {
      case INTEGER -> "integer" + (unit == null ? "" : " " + unit) + " " + min + ".." + max
          + (values == null ? "" : ", " + values);
      case BOOLEAN -> "`true`, `false`";
      case CHOICE -> choices().stream().map(c -> "`" + c + "`").collect(Collectors.joining(", "));
      case TEXT, OBJECT -> values;
    };
  }

  /** The default column of the docs' table. */
  public String defaultText() {
    if (shownDefault != null) {
      return shownDefault;
    }
    if (defaultValue == null) {
      return "none";
    }
    return type == Type.INTEGER || type == Type.BOOLEAN ? defaultValue : "`" + defaultValue + "`";
  }
}
