package dev.writerfence.agent.compat;

import java.lang.instrument.Instrumentation;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * A second Byte Buddy-based agent, built on the unshaded {@code net.bytebuddy} as many agents are:
 * it appends {@code " +other-agent"} to what {@code com.acme.legacy.CompatApp#greeting} returns, a
 * class the writer-fence agent transforms too. It names the class as a string: a class literal
 * would load the class in premain, before this agent's transformer is installed.
 */
public final class OtherAgent {
  private OtherAgent() {}

  /**
   * @param args ignored
   * @param instrumentation the JVM's instrumentation
   */
  public static void premain(String args, Instrumentation instrumentation) {
    new AgentBuilder.Default()
        .disableClassFormatChanges()
        .with(AgentBuilder.Listener.StreamWriting.toSystemError().withErrorsOnly())
        .type(ElementMatchers.named("com.acme.legacy.CompatApp"))
        .transform(
            (builder, type, loader, module, domain) ->
                builder.visit(Advice.to(Greeting.class).on(ElementMatchers.named("greeting"))))
        .installOn(instrumentation);
    System.out.println("other-agent installed");
  }

  /** Inlined at the end of {@code greeting}. */
  static final class Greeting {
    private Greeting() {}

    @Advice.OnMethodExit
    static void exit(@Advice.Return(readOnly = false) String greeting) {
      greeting = greeting + " +other-agent";
    }
  }
}
