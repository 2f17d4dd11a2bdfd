/**
 * The {@code writer-fence} command line: {@code demo}, {@code schema install} and {@code status}.
 */
package dev.writerfence.cli;
