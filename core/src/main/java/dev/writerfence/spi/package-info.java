/**
 * The service provider interface of a lease backend, and nothing else: what a store implements so
 * that a {@code WriterFence} can take, renew and release leases and queue waiters with it.
 * Applications do not need it: they use {@code dev.writerfence} ({@code WriterFence}, {@code
 * FenceRequest}, {@code FenceLease}, {@code FenceListener}, {@code LeaseStatus} and the
 * exceptions).
 *
 * <ul>
 *   <li>A backend implements {@link dev.writerfence.spi.LeaseStore}; its {@code acquire} returns a
 *       {@link dev.writerfence.spi.StoreLease}, a handle that renews and releases itself, so state
 *       of one hold (the advisory backend's pinned connection) lives in its handle.
 *   <li>A store that keeps a queue of waiters answers polls with a {@link dev.writerfence.spi.Turn}
 *       for a {@link dev.writerfence.spi.Ticket}, and may tell waiters of releases through a {@link
 *       dev.writerfence.spi.ReleaseSignal}.
 *   <li>A failure worth retrying is a {@link dev.writerfence.spi.TransientLeaseStoreException}; one
 *       that is not is a {@code WriterFenceUnavailableException}.
 * </ul>
 *
 * <p>The stores that ship with core live in {@code dev.writerfence.store.lease} (the lease row),
 * {@code store.advisory} (advisory locks) and {@code store.rpc} (an existing lease-RPC pair).
 */
package dev.writerfence.spi;
