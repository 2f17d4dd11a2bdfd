/**
 * Internal to writer-fence: public only so that its own modules (the aspect, the agent, the Spring
 * starter, the CLI) can reach it. Any package whose name contains {@code internal} may change in
 * any release without notice; applications and backends must not use it.
 *
 * <p>This package itself is the bottom of core: {@link dev.writerfence.internal.FenceArguments},
 * the input rules of the SQL contract (fence name, holder label, TTL, priority) that every layer
 * above checks its arguments with. It imports nothing else of core.
 */
package dev.writerfence.internal;
