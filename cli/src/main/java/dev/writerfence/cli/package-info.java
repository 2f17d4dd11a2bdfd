/**
 * The {@code writer-fence} command line: {@code demo}, {@code status}, {@code release --force},
 * {@code key}, {@code schema install}, {@code schema verify} and {@code audit}.
 */
package dev.writerfence.cli;
