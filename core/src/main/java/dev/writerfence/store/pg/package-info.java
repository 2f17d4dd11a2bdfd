/** The lease-row backend on PostgreSQL: one row per fence name, changed by one atomic upsert. */
package dev.writerfence.store.pg;
