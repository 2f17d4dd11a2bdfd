/**
 * The service provider interface: what the weaving modes (AspectJ, Spring AOP, the agent) and the
 * lease-store backends build on. Applications do not need it: they use {@code dev.writerfence}
 * ({@code WriterFence}, {@code FenceRequest}, {@code FenceLease}, {@code FenceListener} and the
 * exceptions).
 *
 * <ul>
 *   <li>A weaving mode runs a fenced call through {@link dev.writerfence.spi.FencedCalls}: {@code
 *       proceed} around a method, or {@code enter} before it and {@link
 *       dev.writerfence.spi.FencedCall#exit} after it.
 *   <li>A backend implements {@link dev.writerfence.spi.LeaseStore}; its {@code acquire} returns a
 *       {@link dev.writerfence.spi.StoreLease}, a handle that renews and releases itself, so state
 *       of one hold (the advisory backend's pinned connection) lives in its handle.
 *   <li>{@link dev.writerfence.spi.FenceArguments} holds the input rules of the SQL contract and
 *       {@link dev.writerfence.spi.SqlErrors} sorts database errors, for backends and parsers.
 * </ul>
 */
package dev.writerfence.spi;
