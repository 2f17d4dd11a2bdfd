/** Lease stores: the backend contract ({@link dev.writerfence.store.LeaseStore}) and its rows. */
package dev.writerfence.store;
