/**
 * The lease-row backend ({@code backend=lease}, the default) on PostgreSQL: one row per fence name,
 * changed only through the SQL contract's functions. The other PostgreSQL backend is the advisory
 * lock, in {@code dev.writerfence.store.advisory}.
 */
package dev.writerfence.store.lease;
