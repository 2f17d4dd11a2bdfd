/**
 * Internal: the agent's audit report as one type, which the agent writes and the command line's
 * {@code audit} reads. Not an API: it may change in any release.
 */
package dev.writerfence.internal.audit;
