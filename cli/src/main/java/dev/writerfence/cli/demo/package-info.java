/**
 * The demo: real writer processes share one S3 bucket through the {@code corpus} fence, and the
 * record of their critical sections is checked afterwards.
 *
 * <p>{@link dev.writerfence.cli.demo.DemoCommand} runs the servers and the writer processes; {@link
 * dev.writerfence.cli.demo.DemoWriter} is one writer process; {@link
 * dev.writerfence.cli.demo.CorpusWriter#writeBatch} is the {@code @WriterFenced} method, woven at
 * compile time; {@link dev.writerfence.cli.demo.RecordChecker} checks the record.
 */
package dev.writerfence.cli.demo;
