/**
 * Test support for writer-fence users and for the project's own modules. For users: {@link
 * dev.writerfence.testing.WriterFenceExtension}, {@link dev.writerfence.testing.TestFence} and
 * {@link dev.writerfence.testing.FenceAssert}, on JUnit Jupiter 5.10 and later or 6 (the user's),
 * and in a Spring Boot test {@link dev.writerfence.testing.spring.TestFenceConfiguration}. For the
 * project's tests: the lease-store contract, the recorded critical-section checker and the harness
 * around them.
 */
package dev.writerfence.testing;
