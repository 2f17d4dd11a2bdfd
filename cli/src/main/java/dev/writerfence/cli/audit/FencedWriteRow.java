package dev.writerfence.cli.audit;

import java.util.List;

/**
 * One call site's writes under one hold, as the agent's JSON report lists them with {@code
 * audit.map}.
 *
 * @param client the storage client id, for example {@code aws-s3-v2}
 * @param operation the client operation, for example {@code putObject}
 * @param bucket the bucket (or, for files, the audited directory), {@code null} when unknown
 * @param callSite the first application stack frame
 * @param libraryCall the wrapper library's frame it called, {@code null} when it called the client
 * @param fenceName the fence name the writes held
 * @param holderLabel that hold's holder label, {@code null} when it has none
 * @param count how many writes, at least 1
 * @param keys up to five distinct keys written there
 * @param moreKeys whether more distinct keys were written than {@code keys} holds
 * @param fencedBy who took the hold (the fenced method, or the Java API's caller), {@code null}
 *     when the report does not say (an older agent, or a copy of core that does not tell)
 */
public record FencedWriteRow(
    String client,
    String operation,
    String bucket,
    String callSite,
    String libraryCall,
    String fenceName,
    String holderLabel,
    long count,
    List<String> keys,
    boolean moreKeys,
    String fencedBy) {}
