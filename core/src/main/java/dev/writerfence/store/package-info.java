/**
 * The lease stores that ship with core (the lease row in {@code pg}, the advisory lock in {@code
 * advisory}) and the row operators see of a fence ({@link dev.writerfence.store.LeaseStatus}). The
 * contract a store implements is {@link dev.writerfence.spi.LeaseStore}.
 */
package dev.writerfence.store;
