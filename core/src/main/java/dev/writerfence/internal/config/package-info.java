/**
 * Internal: the catalog of every {@code writer-fence.*} setting of every mode, each defined once
 * ({@link dev.writerfence.internal.config.SettingsCatalog}, {@link
 * dev.writerfence.internal.config.Setting}). The public way to configure a fence is {@code
 * dev.writerfence.config}.
 */
package dev.writerfence.internal.config;
