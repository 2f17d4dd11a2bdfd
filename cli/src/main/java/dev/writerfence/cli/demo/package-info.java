/**
 * The demo: real writer processes share one S3 bucket through one fence ({@code --fence}, {@code
 * corpus} by default), and the record of their critical sections is checked afterwards.
 *
 * <p>{@link dev.writerfence.cli.demo.DemoCommand} runs the steps: {@link
 * dev.writerfence.cli.demo.DemoEnvironment} starts the servers, {@link
 * dev.writerfence.cli.demo.WriterProcesses} the writer processes, {@link
 * dev.writerfence.cli.demo.ProgressReporter} shows them at work. {@link
 * dev.writerfence.cli.demo.DemoWriter} is one writer process; {@link
 * dev.writerfence.cli.demo.CorpusWriter#writeBatch(String, int, java.util.List)} is the
 * {@code @WriterFenced} method, its fence name the template {@code {0}}, woven at compile time.
 * {@link dev.writerfence.cli.demo.RecordChecker} checks the record, and {@link
 * dev.writerfence.cli.demo.TextSummary} or {@link dev.writerfence.cli.demo.JsonSummary} prints the
 * outcome.
 */
package dev.writerfence.cli.demo;
