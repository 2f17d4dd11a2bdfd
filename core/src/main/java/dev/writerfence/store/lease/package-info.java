/**
 * The lease-row backend ({@code backend=lease}, the default) on PostgreSQL: one row per fence name,
 * changed only through the SQL contract's functions. The other PostgreSQL backend is the advisory
 * lock, in {@code dev.writerfence.store.advisory}. The one exception to "only through the
 * functions" is {@link dev.writerfence.store.lease.LeaseTableOwner}: an operator's force-release as
 * the owner of the lease table, which the contract deliberately offers no function for (ADR 3).
 */
package dev.writerfence.store.lease;
