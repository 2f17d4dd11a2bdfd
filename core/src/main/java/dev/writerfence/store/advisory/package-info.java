/**
 * The advisory-lock backend (ADR 7): a fence is a PostgreSQL session advisory lock on a key hashed
 * from its name ({@link dev.writerfence.store.advisory.AdvisoryKeys}), held on a connection pinned
 * from the store's own bounded pool ({@link dev.writerfence.store.advisory.AdvisoryLockStore}).
 */
package dev.writerfence.store.advisory;
