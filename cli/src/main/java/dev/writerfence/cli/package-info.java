/**
 * The {@code writer-fence} ops command line: {@code status}, {@code release --force}, {@code key},
 * {@code schema install}, {@code schema verify} and {@code audit}. The demo and the throwaway
 * database are the demo module's ({@code dev.writerfence.demo}), which builds on this package's
 * options, tables and error handling.
 */
package dev.writerfence.cli;
