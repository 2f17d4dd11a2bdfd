package dev.writerfence.weaving;

import dev.writerfence.spi.FenceArguments;
import java.util.ArrayList;
import java.util.List;

/**
 * A fence name with argument placeholders: {@code "corpus:{0}"} is {@code "corpus:"} followed by
 * the first argument's {@code toString()}. {@code {{} } and {@code }}} are literal braces. Parsed
 * once per method; {@link #resolve} is cheap.
 */
public final class FenceNameTemplate {
  private final String template;
  private final List<Object> parts; // String literals and Integer argument indexes
  private final int highestIndex;

  private FenceNameTemplate(String template, List<Object> parts, int highestIndex) {
    this.template = template;
    this.parts = parts;
    this.highestIndex = highestIndex;
  }

  /**
   * @param template the fence name or its template
   * @return the parsed template
   * @throws IllegalArgumentException naming the template when a brace is unbalanced or a
   *     placeholder is not a non-negative integer, or a constant name breaks the fence name rule
   */
  public static FenceNameTemplate parse(String template) {
    if (template == null) {
      throw new IllegalArgumentException("writer-fence: fence name template is null");
    }
    List<Object> parts = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    int highest = -1;
    for (int i = 0; i < template.length(); i++) {
      char c = template.charAt(i);
      if (c == '{' && i + 1 < template.length() && template.charAt(i + 1) == '{') {
        literal.append('{');
        i++;
      } else if (c == '}' && i + 1 < template.length() && template.charAt(i + 1) == '}') {
        literal.append('}');
        i++;
      } else if (c == '{') {
        int close = template.indexOf('}', i);
        String index = close < 0 ? "" : template.substring(i + 1, close);
        if (!index.matches("\\d{1,3}")) {
          throw new IllegalArgumentException(
              "writer-fence: fence name template '"
                  + template
                  + "' is not allowed: a placeholder is {N} with N an argument index from 0,"
                  + " literal braces are {{ and }}");
        }
        if (literal.length() > 0) {
          parts.add(literal.toString());
          literal.setLength(0);
        }
        int n = Integer.parseInt(index);
        parts.add(n);
        highest = Math.max(highest, n);
        i = close;
      } else if (c == '}') {
        throw new IllegalArgumentException(
            "writer-fence: fence name template '"
                + template
                + "' is not allowed: unbalanced '}' (write }} for a literal brace)");
      } else {
        literal.append(c);
      }
    }
    if (literal.length() > 0) {
      parts.add(literal.toString());
    }
    if (highest < 0) {
      FenceArguments.fenceName(parts.isEmpty() ? "" : (String) parts.get(0));
    }
    return new FenceNameTemplate(template, List.copyOf(parts), highest);
  }

  /**
   * @return {@code true} when the name does not depend on the arguments
   */
  public boolean isConstant() {
    return highestIndex < 0;
  }

  /**
   * @param args the method's arguments; may be {@code null} for a method without any
   * @return the fence name for this call
   * @throws IllegalArgumentException when a placeholder's argument is missing or {@code null}, or
   *     the resulting name breaks the fence name rule
   */
  public String resolve(Object[] args) {
    int count = args == null ? 0 : args.length;
    if (highestIndex >= count) {
      throw new IllegalArgumentException(
          "writer-fence: fence name template '"
              + template
              + "' uses argument {"
              + highestIndex
              + "} but the method has "
              + count
              + " argument(s)");
    }
    StringBuilder name = new StringBuilder();
    for (Object part : parts) {
      if (part instanceof Integer index) {
        Object arg = args[index];
        if (arg == null) {
          throw new IllegalArgumentException(
              "writer-fence: fence name template '"
                  + template
                  + "': argument {"
                  + index
                  + "} is null; a fence name needs a value");
        }
        name.append(arg);
      } else {
        name.append((String) part);
      }
    }
    return FenceArguments.fenceName(name.toString());
  }

  @Override
  public String toString() {
    return template;
  }
}
