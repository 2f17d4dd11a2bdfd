package dev.writerfence.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.security.ProtectionDomain;
import java.util.function.Supplier;

/**
 * The transformer premain registers: JDK code only, it hands a class to Byte Buddy only when a
 * feature's {@link Prefilter} passes it, and builds Byte Buddy (about 900 classes and a generated
 * transformer) when the first such class loads. Every other class costs a name test, and a byte
 * search of its class file while {@code @WriterFenced} is scanned for. A class that fails to
 * instrument, or that passes when Byte Buddy could not be built, is judged by {@link FailClosed}:
 * refused when a fail-closed feature claims it, unchanged otherwise.
 */
final class DeferredTransformer implements ClassFileTransformer {
  /** The agent's own classes, the shaded Byte Buddy among them: never instrumented. */
  private static final String OWN = "dev/writerfence/agent/";

  private final Prefilter prefilter;
  private final Prefilter failClosed;
  private final Supplier<ClassFileTransformer> build;
  private final Object lock = new Object();
  private volatile ClassFileTransformer delegate;
  private volatile RuntimeException buildFailure;

  /**
   * @param prefilter the classes to hand to Byte Buddy
   * @param failClosed the classes that fail-closed features claim (part of {@code prefilter}):
   *     refused rather than loaded unchanged when they cannot be instrumented
   * @param build builds Byte Buddy's transformer; called at most once
   */
  DeferredTransformer(
      Prefilter prefilter, Prefilter failClosed, Supplier<ClassFileTransformer> build) {
    this.prefilter = prefilter;
    this.failClosed = failClosed;
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
    ClassFileTransformer d = delegate();
    if (d == null) {
      return FailClosed.failed(
          className,
          classBeingRedefined != null,
          failClosed.claims(className, loader, classfileBuffer),
          buildFailure);
    }
    return FailClosed.transform(
        className,
        loader,
        classBeingRedefined,
        classfileBuffer,
        failClosed,
        () ->
            d.transform(
                module, loader, className, classBeingRedefined, protectionDomain, classfileBuffer));
  }

  /** Byte Buddy's transformer, built on the first call; {@code null} when it cannot be built. */
  private ClassFileTransformer delegate() {
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
    return d;
  }
}
