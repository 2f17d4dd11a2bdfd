/** Busy retry: the backoff policy and its Resilience4j Retry. */
package dev.writerfence.retry;
