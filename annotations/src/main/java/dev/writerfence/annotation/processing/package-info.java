/**
 * The compile-time index of {@code @WriterFenced} methods ({@link
 * dev.writerfence.annotation.processing.FencedMethodIndexer}), which the start-up weaving check
 * reads.
 */
package dev.writerfence.annotation.processing;
