package dev.writerfence.agent.audit;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The writes of one call site through one client operation, under one hold (fence name, holder
 * label and who took it) or under none: the first one's details, how many there were, when, and a
 * sample of the keys they wrote, so that distinct writes at one site are counted together but never
 * merged silently. Thread-safe.
 */
final class SiteWrites {
  /** How many distinct keys a row keeps as its sample. */
  static final int KEY_SAMPLE = 5;

  final String client;
  final String operation;
  final String callSite;
  final String bucket;
  final String key;
  final String thread;
  final String requiredFence;

  /** The fence name the writes held, {@code null} for unfenced writes. */
  final String fenceName;

  /** The holder label of that hold, {@code null} when it has none or the writes are unfenced. */
  final String holderLabel;

  /**
   * Who took that hold (the fenced method, or the Java API's caller), {@code null} when unknown or
   * the writes are unfenced. Two takers at one call site are two rows.
   */
  final String fencedBy;

  /** The wrapper library's frame the call site called, {@code null} when it called the client. */
  final String libraryCall;

  final Instant firstSeen;
  final AtomicLong count = new AtomicLong();
  final AtomicLong refused = new AtomicLong();
  private volatile Instant lastSeen;
  private final Set<String> keys = new LinkedHashSet<>();

  /** Set once, under the lock; read without it by {@link #samplesKeys()}, on every write. */
  private volatile boolean moreKeys;

  SiteWrites(
      String client,
      String operation,
      String callSite,
      WriteTarget target,
      String thread,
      String requiredFence,
      String fenceName,
      String holderLabel,
      String fencedBy,
      String libraryCall) {
    this.client = client;
    this.operation = operation;
    this.callSite = callSite;
    this.bucket = target.bucket();
    this.key = target.key();
    this.thread = thread;
    this.requiredFence = requiredFence;
    this.fenceName = fenceName;
    this.holderLabel = holderLabel;
    this.fencedBy = fencedBy;
    this.libraryCall = libraryCall;
    this.firstSeen = Instant.now();
    this.lastSeen = firstSeen;
  }

  /** Counts one write. */
  void seen() {
    count.incrementAndGet();
    lastSeen = Instant.now();
  }

  /**
   * @return whether the key sample still has room: only then is a write's key worth reading
   */
  boolean samplesKeys() {
    return !moreKeys;
  }

  /**
   * @param written the key one write wrote, or {@code null} when unknown
   */
  synchronized void sample(String written) {
    if (written == null || keys.contains(written)) {
      return;
    }
    if (keys.size() < KEY_SAMPLE) {
      keys.add(written);
    } else {
      moreKeys = true;
    }
  }

  /**
   * @return up to {@link #KEY_SAMPLE} distinct keys, in the order first written
   */
  synchronized List<String> keys() {
    return new ArrayList<>(keys);
  }

  /**
   * @return whether more distinct keys were written than the sample holds
   */
  synchronized boolean moreKeys() {
    return moreKeys;
  }

  Instant lastSeen() {
    return lastSeen;
  }

  boolean isFenced() {
    return fenceName != null;
  }
}
