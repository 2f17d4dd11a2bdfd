/**
 * Internal (see {@code dev.writerfence.internal}). What every weaving mode shares:
 * {@code @WriterFenced} read into a fence request, and the one entry point the advice calls.
 */
package dev.writerfence.internal.weaving;
