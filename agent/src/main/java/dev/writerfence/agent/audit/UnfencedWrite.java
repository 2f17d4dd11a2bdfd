package dev.writerfence.agent.audit;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The unfenced writes of one call site through one client operation: the first one's details and
 * how many there were. Thread-safe.
 */
final class UnfencedWrite {
  final String client;
  final String operation;
  final String callSite;
  final String bucket;
  final String key;
  final String thread;
  final String requiredFence;
  final Instant firstSeen;
  final AtomicLong count = new AtomicLong();
  final AtomicLong refused = new AtomicLong();

  UnfencedWrite(
      String client,
      String operation,
      String callSite,
      WriteTarget target,
      String thread,
      String requiredFence) {
    this.client = client;
    this.operation = operation;
    this.callSite = callSite;
    this.bucket = target.bucket();
    this.key = target.key();
    this.thread = thread;
    this.requiredFence = requiredFence;
    this.firstSeen = Instant.now();
  }
}
