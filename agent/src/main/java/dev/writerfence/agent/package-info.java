/**
 * The {@code -javaagent}: start-up, settings, and the features it installs (fencing of configured
 * methods, audit of storage writes, carrying holds to handed-off tasks). Everything but the
 * features' matchers is lazy: premain reads settings and registers transformers, and the first
 * fenced call or reported write sets up JDBC, retry and logging.
 */
package dev.writerfence.agent;
