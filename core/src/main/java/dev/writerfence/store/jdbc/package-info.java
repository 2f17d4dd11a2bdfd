/**
 * What the JDBC lease stores ({@code store.lease}, {@code store.advisory}, {@code store.rpc})
 * share: the frame every statement runs in ({@link dev.writerfence.store.jdbc.Statements}: a
 * connection in autocommit, the query timeout, binding, the query) and how a PostgreSQL error is
 * sorted into transient (retried), bad value or unavailable ({@link
 * dev.writerfence.store.jdbc.SqlErrors}). Internal to core's stores; not part of the SPI, which
 * knows nothing of JDBC.
 */
package dev.writerfence.store.jdbc;
