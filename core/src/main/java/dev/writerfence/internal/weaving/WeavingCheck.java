package dev.writerfence.internal.weaving;

import dev.writerfence.annotation.processing.FencedMethodIndexer;
import dev.writerfence.bootstrap.FencingAgent;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up check that the AspectJ aspect reaches the {@code @WriterFenced} methods of this JVM,
 * run when the process fence is set ({@code ProcessFence.set}), when the first fenced call builds
 * it from {@code -Dwriter-fence.*} properties ({@code ProcessFence.get}), and on {@code
 * ProcessFence.checkWeaving()}, the start-up call for that route: without it, weaving that is off
 * (the aspect's jar missing, an {@code aop.xml} that does not declare it, a class outside the
 * weaver's {@code include}) lets annotated methods run unfenced without a word.
 *
 * <p>It lives in core, not in writer-fence-aspectj, because one of the gaps it finds is that jar
 * missing. What it finds:
 *
 * <ul>
 *   <li>AspectJ's load-time weaver attached, but no configuration file it reads declares {@value
 *       #ASPECT}, or one declares it and its class does not load (its jar missing);
 *   <li>a method of the compile-time index ({@link FencedMethodIndexer}) that its class, loaded
 *       (not initialized) through the given class loader, shows no around advice for. Loading is
 *       what lets a load-time weaver weave the class, so the answer is the one the method will
 *       have.
 * </ul>
 *
 * <p>With a writer-fence agent that fences (its fence configured), nothing is judged: the agent
 * fences each annotated method no weaving reached. An agent that only audits reports such a method
 * only when it writes to an audited store, so the check still runs beside it. Index lines naming a
 * class or method this JVM does not have are stale, logged, never a gap.
 *
 * <p>A method proxied by Spring AOP (the starter) carries no weaving marks: with the starter on the
 * class path and no load-time weaver attached, the index is not judged. Woven means: the class has
 * the {@code NAME_aroundBodyN} method AspectJ leaves for an advised execution (any around advice;
 * the check cannot tell which aspect wove it).
 */
public final class WeavingCheck {
  /** The aspect that load-time weaving must declare. */
  public static final String ASPECT = "dev.writerfence.aspectj.WriterFencedAspect";

  private static final String PROPERTY = "writer-fence.weaving.check";
  private static final Logger LOG = LoggerFactory.getLogger(WeavingCheck.class);
  private static final String SPRING_STARTER =
      "dev.writerfence.spring.boot.WriterFenceAutoConfiguration";

  private static volatile boolean passed;

  private WeavingCheck() {}

  /**
   * What the check found.
   *
   * @param gaps each place where annotated methods would run unfenced, with the likely cause; empty
   *     when none
   * @param stale index lines that name a class or method this JVM does not have (an index of
   *     another build): never a gap, since such a method cannot run, but worth a warning
   * @param checked the indexed methods judged (0 without an index, or when it is left to others)
   */
  public record Result(List<String> gaps, List<String> stale, int checked) {
    /** Copies the lists. */
    public Result {
      gaps = List.copyOf(gaps);
      stale = List.copyOf(stale);
    }
  }

  /**
   * Runs the check on {@code loader}.
   *
   * @param loader the class loader of the application (its index, its weaver configuration, its
   *     classes); never {@code null}
   * @return the gaps found; never {@code null}
   * @throws IllegalStateException when an index line cannot be parsed
   */
  public static Result run(ClassLoader loader) {
    List<String> gaps = new ArrayList<>();
    List<String> stale = new ArrayList<>();
    if (agentFences()) {
      return new Result(gaps, stale, 0); // the agent fences each annotated method left unwoven
    }
    boolean weaver = LoadTimeWeaverConfig.weaverAttached();
    if (weaver && !LoadTimeWeaverConfig.declaredAspects(loader, gaps).contains(ASPECT)) {
      gaps.add(
          "AspectJ's load-time weaver is attached, but no aop.xml it reads declares "
              + ASPECT
              + ": writer-fence-aspectj is not on the class path, or the configuration ("
              + LoadTimeWeaverConfig.CONFIGURATION
              + ", or an aop.xml merged into a fat jar) leaves it out");
    } else if (weaver && !loadable(ASPECT, loader)) {
      // AspectJ only logs "cannot be found" and weaves nothing with it: without an index to
      // judge, this line is the only word the application gets.
      gaps.add(
          "an aop.xml declares "
              + ASPECT
              + ", but its class cannot be loaded: writer-fence-aspectj is not on the class path"
              + " (AspectJ's weaver skips the aspect and weaves nothing with it)");
    }
    List<FencedMethodIndex.Entry> index = FencedMethodIndex.read(loader);
    if (index.isEmpty()) {
      return new Result(gaps, stale, 0);
    }
    if (!weaver && loadable(SPRING_STARTER, loader)) {
      return new Result(gaps, stale, 0); // Spring AOP's proxies fence beans: no marks to judge
    }
    boolean aspectJ = weaver || loadable(ASPECT, loader);
    for (FencedMethodIndex.Entry entry : index) {
      judge(entry, loader, aspectJ, gaps, stale);
    }
    return new Result(gaps, stale, index.size());
  }

  /**
   * The check as {@code ProcessFence} runs it: once a JVM has passed (or warned), never again.
   *
   * @param loader the application's class loader; never {@code null}
   * @param mode the setting {@code weaving.check}: {@code fail}, {@code warn} or {@code off}
   * @throws IllegalStateException with {@code fail} and a gap, naming every gap
   * @throws IllegalArgumentException when {@code mode} is not one of the three
   */
  public static void atStartup(ClassLoader loader, String mode) {
    if (!List.of("fail", "warn", "off").contains(mode)) {
      throw new IllegalArgumentException(
          "writer-fence: weaving.check '" + mode + "' is not allowed: fail, warn or off");
    }
    if (passed || mode.equals("off")) {
      return;
    }
    Result result = run(loader);
    if (!result.stale().isEmpty()) {
      LOG.warn(
          "writer-fence: the index of @WriterFenced methods names what this JVM does not have"
              + " (rebuild it with the application):\n  - {}",
          String.join("\n  - ", result.stale()));
    }
    if (result.gaps().isEmpty()) {
      passed = true;
      if (result.checked() > 0) {
        LOG.info("writer-fence: all {} indexed @WriterFenced methods are woven", result.checked());
      }
      return;
    }
    String report =
        "writer-fence: @WriterFenced methods would run with no fence:\n  - "
            + String.join("\n  - ", result.gaps())
            + (mode.equals("fail")
                ? "\n(weaving.check=fail: the fence is refused; -D"
                    + PROPERTY
                    + "=warn runs anyway)"
                : "\n(weaving.check=warn: the fence is set and these methods run unfenced)");
    if (mode.equals("fail")) {
      throw new IllegalStateException(report);
    }
    passed = true; // warned once: the same gaps would be logged at every set
    LOG.warn(report);
  }

  private static void judge(
      FencedMethodIndex.Entry entry,
      ClassLoader loader,
      boolean aspectJ,
      List<String> gaps,
      List<String> stale) {
    Class<?> type;
    try {
      type = Class.forName(entry.className(), false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      stale.add(entry.line() + ": its class cannot be loaded (" + e + ")");
      return;
    }
    Method[] methods = type.getDeclaredMethods();
    if (Arrays.stream(methods).noneMatch(m -> m.getName().equals(entry.methodName()))) {
      stale.add(entry.line() + ": " + type.getName() + " declares no such method");
      return;
    }
    String body = entry.methodName() + "_aroundBody";
    if (Arrays.stream(methods).anyMatch(m -> m.getName().startsWith(body))) {
      return;
    }
    gaps.add(
        "@WriterFenced "
            + entry.line()
            + " would run unfenced: "
            + (aspectJ
                ? "its class "
                    + type.getName()
                    + " was not woven (outside the weaver's <include> in aop.xml, or compiled"
                    + " without ajc's aspect path)"
                : "no weaving in this JVM: neither writer-fence-aspectj on the class path nor"
                    + " AspectJ's load-time weaver, no fencing writer-fence agent, no Spring"
                    + " starter"));
  }

  /** The agent's flag, when core and the agent share the bootstrap class; never a failure. */
  private static boolean agentFences() {
    try {
      return FencingAgent.active();
    } catch (LinkageError e) {
      return false; // an agent of another version: judge as without it
    }
  }

  private static boolean loadable(String name, ClassLoader loader) {
    try {
      Class.forName(name, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
