package dev.writerfence.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.security.ProtectionDomain;
import java.util.function.Supplier;

/**
 * The transformer premain registers: JDK code only, it hands a class to Byte Buddy only when a
 * feature's {@link Prefilter} passes it, and builds Byte Buddy (about 900 classes and a generated
 * transformer) when the first such class loads. Every other class costs a name test, and a byte
 * search of its class file while {@code @WriterFenced} is scanned for.
 */
final class DeferredTransformer implements ClassFileTransformer {
  /** The agent's own classes, the shaded Byte Buddy among them: never instrumented. */
  private static final String OWN = "dev/writerfence/agent/";

  private final Prefilter prefilter;
  private final Supplier<ClassFileTransformer> build;
  private final Object lock = new Object();
  private volatile ClassFileTransformer delegate;
  private volatile RuntimeException buildFailure;

  /**
   * @param prefilter the classes to hand to Byte Buddy
   * @param build builds Byte Buddy's transformer; called at most once
   */
  DeferredTransformer(Prefilter prefilter, Supplier<ClassFileTransformer> build) {
    this.prefilter = prefilter;
    this.build = build;
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
    if (className == null
        || className.startsWith(OWN)
        || !prefilter.mightInstrument(className, loader, classfileBuffer)) {
      return null;
    }
    ClassFileTransformer d = delegate(className);
    return d == null
        ? null
        : d.transform(
            module, loader, className, classBeingRedefined, protectionDomain, classfileBuffer);
  }

  private ClassFileTransformer delegate(String className) {
    ClassFileTransformer d = delegate;
    if (d == null && buildFailure == null) {
      synchronized (lock) {
        d = delegate;
        if (d == null && buildFailure == null) {
          try {
            d = build.get();
            delegate = d;
          } catch (RuntimeException | LinkageError e) {
            buildFailure = new IllegalStateException("cannot build Byte Buddy: " + e, e);
          }
        }
      }
    }
    if (d == null) {
      reportFailure(className.replace('/', '.'), buildFailure);
    }
    return d;
  }

  /**
   * Reports a class that failed to instrument once, in one line, whatever the message holds: hosts
   * often parse their standard error by line.
   *
   * @param typeName the class's binary name
   * @param throwable why
   */
  static void reportFailure(String typeName, Throwable throwable) {
    String cause = String.valueOf(throwable).replaceAll("\\s*\\R\\s*", " ");
    AgentLog.once(typeName, "could not instrument " + typeName + ", left unchanged: " + cause);
  }
}
