/**
 * The held-fence context: which fences the current thread holds ({@link
 * dev.writerfence.context.HeldFences}), and how they travel with the work a holder hands to other
 * threads: executors that carry their submitter's holds ({@link
 * dev.writerfence.context.HoldCarryingExecutor} and its executor-service forms, made by {@code
 * WriterFence.wrap}), and the held fences' accessor for Micrometer's context-propagation ({@link
 * dev.writerfence.context.HeldFencesAccessor}). All of them carry through the one carrier, {@code
 * dev.writerfence.bootstrap.CarriedHolds}.
 */
package dev.writerfence.context;
