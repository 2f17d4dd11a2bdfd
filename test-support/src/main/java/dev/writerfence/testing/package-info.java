/**
 * Test support for writer-fence users and for the project's own modules: JUnit 5 helpers, the
 * lease-store contract and the recorded critical-section checker.
 */
package dev.writerfence.testing;
