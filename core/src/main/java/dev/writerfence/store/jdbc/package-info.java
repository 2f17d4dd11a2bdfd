/**
 * What the JDBC lease stores ({@code store.lease}, {@code store.advisory}, {@code store.rpc})
 * share: how a PostgreSQL error is sorted into transient (retried) or unavailable. Internal to
 * core's stores; not part of the SPI, which knows nothing of JDBC.
 */
package dev.writerfence.store.jdbc;
