package dev.writerfence.spring.metrics;

import dev.writerfence.HolderLabel;
import dev.writerfence.internal.weaving.FencedMethods.FenceNameTemplate;
import io.micrometer.core.instrument.Tags;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tags of a fence's meters, each from a bounded set, so that restarts, pods and argument values
 * make no new time series:
 *
 * <ul>
 *   <li>{@code fence}: the fence name's template ({@code corpus:{0}}) when the name matches one
 *       registered with {@link #template}, else the fence name itself; once {@value
 *       #DEFAULT_MAX_NAMES} names that match no template have been seen, any further one is tagged
 *       {@value #OTHER} (and a warning is logged once).
 *   <li>{@code holder}: the label as configured, without its instance part ({@link
 *       HolderLabel#given}): {@code upload} for {@code upload@web-3:4711}; {@value #NONE} when no
 *       label was given (the label is the instance part alone).
 * </ul>
 *
 * Who holds, and which value a template was given, are per instance: traces and {@code writer-fence
 * status} show them.
 */
public final class FenceTags {
  /** How many fence names that match no template get a tag of their own, by default. */
  public static final int DEFAULT_MAX_NAMES = 100;

  /** The {@code fence} tag of a name beyond the bound. */
  public static final String OTHER = "other";

  /** The {@code holder} tag when no label was given. */
  public static final String NONE = "none";

  private static final Logger LOG = LoggerFactory.getLogger(FenceTags.class);

  private final int maxNames;
  private final List<FenceNameTemplate> templates = new CopyOnWriteArrayList<>();
  private final ConcurrentMap<String, String> names = new ConcurrentHashMap<>();
  private final AtomicBoolean warned = new AtomicBoolean();

  /** Tags with the default bound of {@value #DEFAULT_MAX_NAMES} untemplated names. */
  public FenceTags() {
    this(DEFAULT_MAX_NAMES);
  }

  /**
   * @param maxNames how many fence names that match no template get a tag of their own; at least 1
   * @throws IllegalArgumentException when {@code maxNames} is less than 1
   */
  public FenceTags(int maxNames) {
    if (maxNames < 1) {
      throw new IllegalArgumentException(
          "writer-fence: metric fence-name bound " + maxNames + " is not allowed: at least 1");
    }
    this.maxNames = maxNames;
  }

  /**
   * Registers a fence name template: names it makes are tagged with it from now on. A constant
   * template is a name, tagged as itself anyway; a template of placeholders alone ({@code {0}}) is
   * ignored: the names it makes are tagged as names, within the bound.
   *
   * @param template the parsed template; never {@code null}
   */
  public void template(FenceNameTemplate template) {
    Objects.requireNonNull(template, "template");
    if (template.isConstant()
        || template.literalLength() == 0 // "{0}" says nothing the name does not: no tag of its own
        || templates.stream().anyMatch(t -> t.toString().equals(template.toString()))) {
      return;
    }
    templates.add(template);
    // Names seen before the template was known keep their series; later calls of such a name
    // count in the template's.
    names.keySet().removeIf(template::matches);
  }

  /**
   * @param fenceName a fence name
   * @return its {@code fence} tag: its template, itself, or {@value #OTHER}
   */
  public String fence(String fenceName) {
    String tag = names.get(fenceName);
    if (tag != null) {
      return tag;
    }
    FenceNameTemplate template =
        templates.stream()
            .filter(t -> t.matches(fenceName))
            .max(Comparator.comparingInt(FenceNameTemplate::literalLength))
            .orElse(null);
    if (template != null) {
      return template.toString(); // not cached: the names of a template are unbounded
    }
    if (names.size() >= maxNames) {
      if (warned.compareAndSet(false, true)) {
        LOG.warn(
            "writer-fence: more than {} fence names match no @WriterFenced template; the meters of"
                + " further ones (first: '{}') are tagged fence={}. Give fence names made from"
                + " values a template, or see `writer-fence status` for each name",
            maxNames,
            fenceName,
            OTHER);
      }
      return OTHER;
    }
    return names.computeIfAbsent(fenceName, n -> n);
  }

  /**
   * @param fenceName a fence name
   * @return whether its tag is the name itself (not a template, not {@value #OTHER}): only then
   *     does one fence name's own gauge, like its queue's length, have a series
   */
  public boolean isOwnName(String fenceName) {
    return fenceName.equals(fence(fenceName))
        && templates.stream().noneMatch(t -> t.toString().equals(fenceName));
  }

  /**
   * @param holderLabel a holder label as a lease row shows it, or {@code null}
   * @return its {@code holder} tag: the given part, or {@value #NONE}
   */
  public static String holder(String holderLabel) {
    String given = HolderLabel.given(holderLabel);
    return given == null || given.isEmpty() ? NONE : given;
  }

  /**
   * @param fenceName a fence name
   * @param holderLabel a holder label as a lease row shows it, or {@code null}
   * @return the {@code fence} and {@code holder} tags
   */
  public Tags of(String fenceName, String holderLabel) {
    return Tags.of("fence", fence(fenceName), "holder", holder(holderLabel));
  }
}
