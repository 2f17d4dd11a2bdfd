package dev.writerfence.cli.audit;

import java.util.List;

/**
 * One call site's unfenced writes, as the agent's JSON report lists them.
 *
 * @param client the storage client id, for example {@code aws-s3-v2}
 * @param operation the client operation, for example {@code putObject}
 * @param bucket the bucket (or volume), {@code null} when unknown
 * @param key the object key (or file path), {@code null} when unknown
 * @param callSite the first application stack frame, for example {@code
 *     com.acme.Job.run(Job.java:42)}
 * @param thread the name of the thread of the first such write
 * @param count how many writes from this call site, at least 1
 * @param refused how many of them enforce mode refused
 * @param keys up to five distinct keys written there, in the order first written
 * @param moreKeys whether more distinct keys were written than {@code keys} holds
 * @param libraryCall the wrapper library's frame it called, {@code null} when it called the client
 */
public record UnfencedWriteRow(
    String client,
    String operation,
    String bucket,
    String key,
    String callSite,
    String thread,
    long count,
    long refused,
    List<String> keys,
    boolean moreKeys,
    String libraryCall) {}
