/**
 * State shared by every copy of writer-fence in one JVM: the fences each thread holds.
 *
 * <p>These classes use the JDK only. Core ships them on the application's class path; the agent
 * appends the same classes to the bootstrap class loader's search path before anything loads them,
 * and then parent-first delegation makes every class loader (the application's, a Spring Boot fat
 * jar's, the agent's own) resolve the one bootstrap copy. That is how the agent's audit advice,
 * inlined into a storage client, sees the fences core pushed (ADR 11).
 */
package dev.writerfence.bootstrap;
