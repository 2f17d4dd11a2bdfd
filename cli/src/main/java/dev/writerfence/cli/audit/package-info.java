/**
 * {@code writer-fence audit}: a Java command run with the agent in audit mode, and the agent's
 * report of unfenced writes read back and printed; the demo's legacy writer uses the same pieces.
 */
package dev.writerfence.cli.audit;
