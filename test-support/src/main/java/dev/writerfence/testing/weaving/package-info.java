/**
 * The weaving contract: one set of expectations that every weaving mode of {@code @WriterFenced}
 * (AspectJ compile-time and load-time weaving, the Spring starter's advice, the agent) must meet.
 *
 * <p>A mode's test extends {@link dev.writerfence.testing.weaving.WeavingContract}: in its own JVM
 * through {@link dev.writerfence.testing.weaving.InProcessWeavingContract}, or in a JVM it starts
 * (a {@code -javaagent}) through {@link dev.writerfence.testing.weaving.ForkedWeavingContract}. The
 * mode fences the writer classes of this package ({@link
 * dev.writerfence.testing.weaving.MethodFencedWriter}, {@link
 * dev.writerfence.testing.weaving.TypeFencedWriter}, {@link
 * dev.writerfence.testing.weaving.InterfaceFencedWriter}); the expectations ({@link
 * dev.writerfence.testing.weaving.Expectation}) call them and look at the lease rows.
 */
package dev.writerfence.testing.weaving;
