/**
 * The {@code writer-fence.*} settings of every mode: {@link
 * dev.writerfence.internal.config.SettingsCatalog} defines each key once, {@link
 * dev.writerfence.config.WriterFenceSettings} reads those of the process fence, {@link
 * dev.writerfence.config.ProcessFence} holds the fence of the process.
 */
package dev.writerfence.config;
