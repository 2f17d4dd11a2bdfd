package dev.writerfence.internal.config;

import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * One {@code writer-fence.*} setting of the {@link SettingsCatalog}: its key, the kind and rule of
 * its values, its default, the modes that read it, and what it means. Immutable.
 *
 * <p>A <em>family</em> stands for keys under a prefix, such as {@code
 * audit.require-fence.<client>}: {@link #matches} accepts {@code audit.require-fence.aws-s3-v2}. A
 * family with {@linkplain #members() members} accepts only those last parts ({@code
 * audit.require-fence.gsc}, a typo, is no key of it).
 *
 * @param <T> what a value parses to, such as {@link java.time.Duration} for {@code ttl}
 */
public final class Setting<T> {
  /** The kind of a value, as configuration metadata and the configuration page name it. */
  public enum Kind {
    /** Free text (a name, a label, a path, a URL). */
    TEXT,
    /** {@code true} or {@code false}. */
    FLAG,
    /** A whole number. */
    WHOLE_NUMBER,
    /** A decimal number. */
    NUMBER,
    /**
     * A duration with a unit: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, {@code PT30S}.
     */
    DURATION,
    /** One of a fixed list of words ({@link #choices()}). */
    CHOICE
  }

  private final String key;
  private final Kind kind;
  private final Function<String, T> parser;
  private final String defaultValue;
  private final String defaultText;
  private final String allowed;
  private final List<String> choices;
  private final List<String> members;
  private final Set<SettingsCatalog.Mode> modes;
  private final String example;
  private final String javaApi;
  private final String meaning;

  private Setting(Builder<T> b) {
    this.key = b.key;
    this.kind = b.kind;
    this.parser = b.parser;
    this.defaultValue = b.defaultValue;
    this.defaultText = b.defaultText != null ? b.defaultText : b.defaultValue;
    this.allowed = Objects.requireNonNull(b.allowed, "allowed");
    this.choices = List.copyOf(b.choices);
    this.members = List.copyOf(b.members);
    this.modes = Set.copyOf(b.modes);
    this.example = Objects.requireNonNull(b.example, "example");
    this.javaApi = b.javaApi;
    this.meaning = Objects.requireNonNull(b.meaning, "meaning");
    if (modes.isEmpty()) {
      throw new IllegalArgumentException("setting " + key + " is read by no mode");
    }
    if (!members.isEmpty() && !isFamily()) {
      throw new IllegalArgumentException("setting " + key + " is no family: it has no members");
    }
  }

  static <T> Builder<T> builder(String key, Kind kind, Function<String, T> parser) {
    return new Builder<>(key, kind, parser);
  }

  /**
   * @return the key without the {@code writer-fence.} prefix, such as {@code retry.max-attempts};
   *     for a family, its prefix followed by a placeholder, such as {@code
   *     audit.require-fence.<client>}
   */
  public String key() {
    return key;
  }

  /**
   * @return the system property: {@code writer-fence.} and the key
   */
  public String property() {
    return SettingsCatalog.PREFIX + key;
  }

  /**
   * @return {@code true} when this setting stands for every key under a prefix
   */
  public boolean isFamily() {
    return key.endsWith(">");
  }

  /**
   * @return for a family, the prefix its keys share, such as {@code audit.require-fence.}; else the
   *     key itself
   */
  public String familyPrefix() {
    return isFamily() ? key.substring(0, key.lastIndexOf('.') + 1) : key;
  }

  /**
   * @param bareKey a key without the prefix
   * @return whether that key is this setting (for a family: a key under its prefix)
   */
  public boolean matches(String bareKey) {
    if (isFamily()) {
      String prefix = familyPrefix();
      if (!bareKey.startsWith(prefix) || bareKey.length() == prefix.length()) {
        return false;
      }
      return members.isEmpty() || members.contains(bareKey.substring(prefix.length()));
    }
    return key.equals(bareKey);
  }

  /**
   * @return for a family whose keys are a known set, the last parts it accepts (for {@code
   *     audit.require-fence.<client>}, the audited clients' ids) in the order shown; otherwise
   *     empty (a family without members accepts any last part)
   */
  public List<String> members() {
    return members;
  }

  /**
   * @return the kind of its values
   */
  public Kind kind() {
    return kind;
  }

  /**
   * @return for {@link Kind#CHOICE}, the accepted words in the order shown; otherwise empty
   */
  public List<String> choices() {
    return choices;
  }

  /**
   * @return the default as one would write it ({@code 30s}, {@code 5}, {@code lease}); empty when
   *     there is none or it is computed (a third of the TTL, the process id)
   */
  public Optional<String> defaultValue() {
    return Optional.ofNullable(defaultValue);
  }

  /**
   * @return the default as the configuration page shows it: the value, or what it is computed from,
   *     or "none"
   */
  public String defaultText() {
    return defaultText != null ? defaultText : "none";
  }

  /**
   * @return the rule a value must meet, in words (shown in errors and on the configuration page)
   */
  public String allowed() {
    return allowed;
  }

  /**
   * @return the modes that read this setting; every other mode accepts and ignores it
   */
  public Set<SettingsCatalog.Mode> modes() {
    return modes;
  }

  /**
   * @param mode a mode
   * @return whether that mode reads this setting
   */
  public boolean isReadBy(SettingsCatalog.Mode mode) {
    return modes.contains(mode);
  }

  /**
   * @return a value every mode that reads this setting accepts (tests set them all at once)
   */
  public String example() {
    return example;
  }

  /**
   * @return the builder method or other Java API that sets the same thing on a fence you build
   *     yourself; empty when none
   */
  public String javaApi() {
    return javaApi == null ? "" : javaApi;
  }

  /**
   * @return what the setting does, one sentence
   */
  public String meaning() {
    return meaning;
  }

  /**
   * Parses and checks a value.
   *
   * @param value the text as given, not {@code null}; surrounding white space is ignored
   * @return the value
   * @throws IllegalArgumentException naming the key, the value and what is allowed
   */
  public T parse(String value) {
    return parse(key, value);
  }

  /**
   * Parses and checks a value of one key of a family (or of this key).
   *
   * @param bareKey the key as given, such as {@code audit.require-fence.aws-s3-v2}, for the message
   * @param value the text as given, not {@code null}; surrounding white space is ignored
   * @return the value
   * @throws IllegalArgumentException naming the key, the value and what is allowed
   */
  public T parse(String bareKey, String value) {
    String v = value.strip();
    try {
      return parser.apply(v);
    } catch (IllegalArgumentException e) {
      String detail = String.valueOf(e.getMessage()).replaceFirst("^writer-fence: ", "");
      String named = bareKey + " '" + v + "'";
      throw new IllegalArgumentException(
          "writer-fence: " + (detail.startsWith(named) ? detail : named + ": " + detail), e);
    }
  }

  /**
   * @return the parsed default, or empty when there is none
   */
  public Optional<T> parsedDefault() {
    return defaultValue().map(this::parse);
  }

  @Override
  public String toString() {
    return property();
  }

  /** Collects one setting's definition; only {@link SettingsCatalog} builds settings. */
  static final class Builder<T> {
    private final String key;
    private final Kind kind;
    private final Function<String, T> parser;
    private String defaultValue;
    private String defaultText;
    private String allowed;
    private List<String> choices = List.of();
    private List<String> members = List.of();
    private final Set<SettingsCatalog.Mode> modes = EnumSet.noneOf(SettingsCatalog.Mode.class);
    private String example;
    private String javaApi;
    private String meaning;

    private Builder(String key, Kind kind, Function<String, T> parser) {
      this.key = key;
      this.kind = kind;
      this.parser = parser;
    }

    Builder<T> readBy(SettingsCatalog.Mode... readers) {
      modes.addAll(List.of(readers));
      return this;
    }

    Builder<T> defaultValue(String value) {
      this.defaultValue = value;
      return this;
    }

    Builder<T> defaultText(String text) {
      this.defaultText = text;
      return this;
    }

    Builder<T> allowed(String rule) {
      this.allowed = rule;
      return this;
    }

    Builder<T> choices(List<String> words) {
      this.choices = words;
      return this;
    }

    Builder<T> members(List<String> names) {
      this.members = names;
      return this;
    }

    Builder<T> example(String value) {
      this.example = value;
      return this;
    }

    Builder<T> javaApi(String api) {
      this.javaApi = api;
      return this;
    }

    Builder<T> meaning(String text) {
      this.meaning = text;
      return this;
    }

    Setting<T> build() {
      return new Setting<>(this);
    }
  }
}
