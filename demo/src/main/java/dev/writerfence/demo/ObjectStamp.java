package dev.writerfence.demo;

/**
 * The stamp an object carries in the bucket, as read back after the run.
 *
 * @param key the object key
 * @param token the fencing token in its user metadata, or {@code null} when missing or unreadable
 * @param holder the holder label in its user metadata, or {@code null}
 * @param bodyToken the fencing token written in its body, or {@code null}
 */
public record ObjectStamp(String key, Long token, String holder, Long bodyToken) {}
