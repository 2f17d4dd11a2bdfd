/**
 * The {@code writer-fence} command line: {@code demo}, {@code status}, {@code release --force},
 * {@code key}, {@code schema install} and {@code schema verify}.
 */
package dev.writerfence.cli;
