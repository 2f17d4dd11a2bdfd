/**
 * What an application sees of the agent's audit: {@link
 * dev.writerfence.audit.UnfencedWriteException}, thrown in enforce mode. In the bootstrap module
 * (the agent places it in the bootstrap class loader), under a package the agent's shading leaves
 * alone, so the one class is visible by this name in every class loader.
 */
package dev.writerfence.audit;
