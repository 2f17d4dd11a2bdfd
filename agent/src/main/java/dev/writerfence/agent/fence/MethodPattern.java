package dev.writerfence.agent.fence;

import dev.writerfence.HolderLabel;
import dev.writerfence.agent.AgentConfigurationException;
import dev.writerfence.annotation.OnBusy;
import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.internal.weaving.FencedMethods.FenceNameTemplate;
import dev.writerfence.retry.BusyRetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One entry of {@code fence.methods}: {@code
 * CLASS#METHOD[=FENCE[/HOLDER]][;priority=N][;on-busy=throw|skip][;retry.max-wait=DURATION]
 * [;interrupt-on-loss=true|false][;advisory-key=KEY]}. {@code CLASS} is an exact binary class name
 * ({@code com.acme.Outer$Inner}); {@code METHOD} a method name in which {@code *} stands for any
 * run of characters; {@code FENCE} a fence name or template ({@code corpus:{0}}) and {@code HOLDER}
 * a holder label, split at the last {@code /}. Without {@code =} the fence name is the {@code
 * fence-name} setting; without {@code /} the holder is the {@code holder} setting. The options
 * after {@code ;} are those of {@code @WriterFenced}: {@code priority} (-100 to 100; default the
 * {@code priority} setting), {@code on-busy} ({@code throw}, the default, or {@code skip}), {@code
 * retry.max-wait} (a duration of at least 1 ms; default the {@code retry.max-wait} setting) and
 * {@code interrupt-on-loss} ({@code true} or {@code false}, the default: {@code interruptOnLoss})
 * and {@code advisory-key} (an advisory key text or template fed by the fence name's arguments, as
 * {@code advisoryKey}: {@code advisory-key=vibey.integrate:{0}:{1}}). As {@code ,} separates
 * entries, {@code ;} separates options: neither can appear in a fence name or holder label written
 * here.
 *
 * @param text the entry as written, for messages
 * @param className the exact binary class name
 * @param methodGlob the method name, {@code *} as wildcard
 * @param fenceName the fence name or template
 * @param holderLabel the holder label as rows show it ({@code HOLDER@host:pid}, {@link
 *     HolderLabel#of}), or {@code null} for the fence's default
 * @param priority the priority in the fence's queue, or {@code null} for the fence's default
 * @param onBusy what a call does when the fence stays busy; never {@code null}
 * @param maxWait the longest a busy call waits, or {@code null} for the fence's default
 * @param interruptOnLoss interrupt the call's thread when its lease is lost while the call runs
 * @param advisoryKey the advisory key template, or {@code null} for the store's key scheme
 */
record MethodPattern(
    String text,
    String className,
    String methodGlob,
    FenceNameTemplate fenceName,
    String holderLabel,
    Integer priority,
    OnBusy onBusy,
    Duration maxWait,
    boolean interruptOnLoss,
    FenceNameTemplate advisoryKey) {
  /** The form of an entry, for messages. */
  static final String FORM =
      "CLASS#METHOD[=FENCE[/HOLDER]][;priority=N][;on-busy=throw|skip][;retry.max-wait=DURATION]"
          + "[;interrupt-on-loss=true|false][;advisory-key=KEY]";

  private static final Pattern CLASS_NAME =
      Pattern.compile("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)*");
  private static final Pattern METHOD_GLOB = Pattern.compile("[\\p{L}\\p{N}_$*]+");

  /**
   * @param value the {@code fence.methods} setting: entries separated by commas
   * @param defaultFenceName the {@code fence-name} setting
   * @return the entries in order; never empty
   * @throws AgentConfigurationException naming the entry and the allowed form when one is bad
   */
  static List<MethodPattern> parseAll(String value, Optional<String> defaultFenceName) {
    List<MethodPattern> patterns = new ArrayList<>();
    for (String entry : value.split(",", -1)) {
      patterns.add(parse(entry.strip(), defaultFenceName));
    }
    return List.copyOf(patterns);
  }

  static MethodPattern parse(String entry, Optional<String> defaultFenceName) {
    String[] parts = entry.split(";", -1);
    String head = parts[0].strip();
    Integer priority = null;
    OnBusy onBusy = OnBusy.THROW;
    Duration maxWait = null;
    boolean interruptOnLoss = false;
    String advisoryKey = null;
    Set<String> seen = new HashSet<>();
    for (int i = 1; i < parts.length; i++) {
      String option = parts[i].strip();
      int eq = option.indexOf('=');
      String key = eq < 0 ? option : option.substring(0, eq).strip();
      String value = eq < 0 ? "" : option.substring(eq + 1).strip();
      if (!seen.add(key)) {
        throw bad(entry, "option '" + key + "' is given twice");
      }
      try {
        switch (key) {
          case "priority" -> priority = SettingsCatalog.PRIORITY.parse(value);
          case "on-busy" -> onBusy = onBusy(value);
          case "retry.max-wait" ->
              maxWait =
                  BusyRetryPolicy.defaults()
                      .withMaxWait(SettingsCatalog.duration("retry.max-wait", value))
                      .maxWait();
          case "interrupt-on-loss" -> interruptOnLoss = interruptOnLoss(value);
          case "advisory-key" -> advisoryKey = value;
          default ->
              throw new IllegalArgumentException(
                  "option '"
                      + option
                      + "' is not one of priority=N, on-busy=throw|skip, retry.max-wait=DURATION,"
                      + " interrupt-on-loss=true|false, advisory-key=KEY");
        }
      } catch (IllegalArgumentException e) {
        throw bad(entry, String.valueOf(e.getMessage()).replaceFirst("^writer-fence: ", ""));
      }
    }
    int eq = head.indexOf('=');
    String target = eq < 0 ? head : head.substring(0, eq).strip();
    int hash = target.indexOf('#');
    if (hash < 0) {
      throw bad(entry, "it has no '#' between the class and the method");
    }
    String className = target.substring(0, hash).strip();
    String methodGlob = target.substring(hash + 1).strip();
    if (!CLASS_NAME.matcher(className).matches()) {
      throw bad(entry, "'" + className + "' is not a binary class name such as com.acme.Uploader");
    }
    if (!METHOD_GLOB.matcher(methodGlob).matches()) {
      throw bad(entry, "'" + methodGlob + "' is not a method name ('*' matches any characters)");
    }
    String fence;
    String holder = null;
    if (eq < 0) {
      fence =
          defaultFenceName.orElseThrow(
              () ->
                  bad(entry, "it names no fence (…=FENCE) and the setting fence-name is not set"));
    } else {
      String spec = head.substring(eq + 1).strip();
      int slash = spec.lastIndexOf('/');
      fence = slash < 0 ? spec : spec.substring(0, slash).strip();
      holder = slash < 0 ? null : spec.substring(slash + 1).strip();
    }
    try {
      FenceNameTemplate name = FenceNameTemplate.parse(fence);
      return new MethodPattern(
          entry,
          className,
          methodGlob,
          name,
          HolderLabel.of(holder), // decorated once, here
          priority,
          onBusy,
          maxWait,
          interruptOnLoss,
          advisoryKey == null ? null : name.advisoryKey(advisoryKey));
    } catch (IllegalArgumentException e) {
      throw bad(entry, e.getMessage());
    }
  }

  private static OnBusy onBusy(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "throw" -> OnBusy.THROW;
      case "skip" -> OnBusy.SKIP;
      default ->
          throw new IllegalArgumentException(
              "on-busy '" + value + "' is not allowed: throw or skip");
    };
  }

  private static boolean interruptOnLoss(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(
              "interrupt-on-loss '" + value + "' is not allowed: true or false");
    };
  }

  /**
   * @param methodName a method's name
   * @return {@code true} when the glob matches it
   */
  boolean matchesMethod(String methodName) {
    return glob(methodGlob, 0, methodName, 0);
  }

  /** {@code *} matches any run of characters, every other character itself. */
  private static boolean glob(String glob, int g, String name, int n) {
    if (g == glob.length()) {
      return n == name.length();
    }
    char c = glob.charAt(g);
    if (c == '*') {
      for (int i = n; i <= name.length(); i++) {
        if (glob(glob, g + 1, name, i)) {
          return true;
        }
      }
      return false;
    }
    return n < name.length() && name.charAt(n) == c && glob(glob, g + 1, name, n + 1);
  }

  private static AgentConfigurationException bad(String entry, String why) {
    return new AgentConfigurationException(
        "writer-fence agent: fence.methods entry '"
            + entry
            + "' is not allowed: "
            + why
            + "; write "
            + FORM
            + ", for example com.acme.sync.Uploader#upload*=corpus/upload;on-busy=skip");
  }
}
