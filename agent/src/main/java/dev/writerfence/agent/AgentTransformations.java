package dev.writerfence.agent;

import dev.writerfence.agent.propagation.PropagationFeature;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.List;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.utility.JavaModule;

/**
 * Builds the agent's Byte Buddy transformer from the enabled features. The only class of the
 * agent's core that names Byte Buddy, so that premain loads none of it unless a feature needs it at
 * start.
 */
final class AgentTransformations {
  private AgentTransformations() {}

  /**
   * Installs the transformer and retransforms the classes already loaded that it matches. A class
   * that fails to instrument is judged by {@link FailClosed}, as under {@link DeferredTransformer}.
   *
   * @param features the enabled features, each {@link AgentFeature#prepare prepared}
   * @param failClosed the classes that fail-closed features claim
   * @param settings the agent's settings
   * @param instrumentation the JVM's instrumentation
   */
  static void installNow(
      List<AgentFeature> features,
      Prefilter failClosed,
      AgentSettings settings,
      Instrumentation instrumentation) {
    builder(features, settings, instrumentation)
        .with(
            (AgentBuilder.TransformerDecorator)
                transformer -> new FailingClosed(transformer, failClosed))
        .installOn(instrumentation);
  }

  /**
   * Installs one feature whose classes are all loaded already (the JDK's executors, for carrying
   * holds), when the first hold of the JVM is recorded: only the classes it names are
   * retransformed, not every loaded class swept. Never throws: a failure is one line on standard
   * error, and holds are then not carried (an audit in enforce mode refuses the handed-off writes).
   *
   * @param feature the feature, {@link AgentFeature#prepare prepared}
   * @param settings the agent's settings
   * @param instrumentation the JVM's instrumentation
   */
  static void installAtFirstHold(
      AgentFeature feature, AgentSettings settings, Instrumentation instrumentation) {
    try {
      feature
          .install(baseBuilder(), settings, instrumentation)
          .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
          .redefineOnly(PropagationFeature.loadedTargets())
          .installOn(instrumentation);
    } catch (RuntimeException | LinkageError e) {
      AgentLog.info("cannot carry holds to handed-off tasks: " + e);
    }
  }

  /**
   * @param features the enabled features, each {@link AgentFeature#prepare prepared}
   * @param settings the agent's settings
   * @param instrumentation the JVM's instrumentation
   * @return the transformer, not registered with {@code instrumentation}: the caller hands it the
   *     classes it should see, through {@link FailClosed#transform}
   */
  static ClassFileTransformer makeRaw(
      List<AgentFeature> features, AgentSettings settings, Instrumentation instrumentation) {
    return builder(features, settings, instrumentation).makeRaw();
  }

  private static AgentBuilder builder(
      List<AgentFeature> features, AgentSettings settings, Instrumentation instrumentation) {
    AgentBuilder builder = baseBuilder();
    for (AgentFeature feature : features) {
      builder = feature.install(builder, settings, instrumentation);
    }
    return builder;
  }

  private static AgentBuilder baseBuilder() {
    // TypeValidation.DISABLED, PoolStrategy FAST and InitializationStrategy.NoOp were tried: no
    // measurable change (StartupCost, medians of 9: 1.27 s against 1.30 s of CPU), so the defaults.
    return new AgentBuilder.Default()
        .disableClassFormatChanges()
        .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
        .with(AgentBuilder.TypeStrategy.Default.DECORATE)
        .with(new FailureListener())
        // Names only: every class reaching Byte Buddy is tested, and a test of anything else
        // (isSynthetic, annotations, the hierarchy) makes Byte Buddy parse the class file.
        .ignore(
            ElementMatchers.nameStartsWith("dev.writerfence.agent.")
                .or(ElementMatchers.nameStartsWith("net.bytebuddy.")));
  }

  /**
   * Hands each failure to {@link FailClosed}, which ties it to the class being transformed on this
   * thread and decides whether that class is refused or loads unchanged.
   */
  private static final class FailureListener extends AgentBuilder.Listener.Adapter {
    @Override
    public void onError(
        String typeName,
        ClassLoader classLoader,
        JavaModule module,
        boolean loaded,
        Throwable throwable) {
      FailClosed.reportedByByteBuddy(typeName, throwable);
    }

    @Override
    public void onTransformation(
        TypeDescription typeDescription,
        ClassLoader classLoader,
        JavaModule module,
        boolean loaded,
        DynamicType dynamicType) {
      // Quiet on success: a line per class would flood the host's output.
    }
  }

  /**
   * Byte Buddy's installed transformer, each call run through {@link FailClosed#transform}. Only
   * the {@code Module} variant: Java 9 and later call no other.
   */
  private static final class FailingClosed extends ResettableClassFileTransformer.WithDelegation {
    private final Prefilter failClosed;

    FailingClosed(ResettableClassFileTransformer transformer, Prefilter failClosed) {
      super(transformer);
      this.failClosed = failClosed;
    }

    @Override
    public byte[] transform(
        Module module,
        ClassLoader loader,
        String className,
        Class<?> classBeingRedefined,
        ProtectionDomain protectionDomain,
        byte[] classfileBuffer)
        throws IllegalClassFormatException {
      return FailClosed.transform(
          className,
          loader,
          classBeingRedefined,
          classfileBuffer,
          failClosed,
          () ->
              classFileTransformer.transform(
                  module,
                  loader,
                  className,
                  classBeingRedefined,
                  protectionDomain,
                  classfileBuffer));
    }
  }
}
