/**
 * Legacy applications the agent's compatibility tests run, outside {@code dev.writerfence.agent}
 * (which the agent never transforms) and with no writer-fence class on their class path unless
 * stated.
 */
package com.acme.legacy;
