/**
 * The demo: real writer processes share one S3 bucket through one fence ({@code --fence}, {@code
 * corpus} by default), and the record of their critical sections is checked afterwards.
 *
 * <p>{@link dev.writerfence.demo.DemoCli} is the command line ({@code demo} and {@code database},
 * {@link dev.writerfence.demo.DatabaseCommand}); {@link dev.writerfence.demo.DemoCommand} runs the
 * demo's steps: {@link dev.writerfence.demo.DemoEnvironment} starts the servers, {@link
 * dev.writerfence.demo.WriterProcesses} the writer processes, {@link
 * dev.writerfence.demo.ProgressReporter} shows them at work. {@link
 * dev.writerfence.demo.DemoWriter} is one writer process; {@link
 * dev.writerfence.demo.CorpusWriter#writeBatch(String, int, java.util.List)} is the
 * {@code @WriterFenced} method, its fence name the template {@code {0}}, woven at compile time.
 * {@link dev.writerfence.demo.RecordChecker} checks the record, and {@link
 * dev.writerfence.demo.TextSummary} or {@link dev.writerfence.demo.JsonSummary} prints the outcome.
 */
package dev.writerfence.demo;
