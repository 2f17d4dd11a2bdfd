/** The held-fence context: which fences the current thread holds. */
package dev.writerfence.context;
