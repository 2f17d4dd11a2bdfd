package dev.writerfence.agent.audit;

import dev.writerfence.agent.AgentLog;
import dev.writerfence.audit.UnfencedWriteException;
import dev.writerfence.bootstrap.AuditGate;
import dev.writerfence.bootstrap.HeldFenceStack;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.FlightRecorder;

/**
 * The agent's {@link AuditGate.Sink}: records each unfenced write once per call site (client,
 * operation, first application frame) with a count and a sample of its keys, and in enforce mode
 * refuses it. With {@code audit.map} it records fenced writes the same way, per call site and hold
 * (fence name, holder label, and who took the hold: {@link HeldFenceStack.Entry#takenBy()}): the
 * rows of the writer map. Two takers at one call site (one write reached from two fenced methods)
 * are two rows, so the map names each.
 *
 * <p>A write whose stack has no application frame runs on a client library's own thread (a
 * multipart part, an async continuation): it is part of a logical write that was already judged on
 * the thread that started it, and passes here. A failure of the recorder itself is logged once; in
 * enforce mode the write is still refused, so the audit never fails open.
 */
final class AuditRecorder implements AuditGate.Sink {
  private final AuditSettings settings;
  private final Map<String, ClientAudit> clients;
  private final CallSites callSites;
  private final UnfencedAnnotatedMethods annotated = new UnfencedAnnotatedMethods();
  private final Map<String, SiteWrites> rows = new ConcurrentHashMap<>();

  /** The same rows, by the cheap key of their call site: what a repeated write looks up. */
  private final Map<SiteKey, SiteWrites> bySite = new ConcurrentHashMap<>();

  /** A call site's writes under one hold; {@code fenceName} {@code null} for unfenced ones. */
  private record SiteKey(
      String client,
      String operation,
      CallSites.Site site,
      String fenceName,
      String holderLabel,
      String fencedBy) {}

  /** A client operation, whose call sites' depth sizes the next walk. */
  private record Operation(String client, String operation) {}

  /**
   * The deepest call site found so far per client operation, as {@link CallSites.Site#depth()}: the
   * next walk asks for a first batch that reaches it. The deepest rather than the last, since a
   * batch a few frames too long costs less than a second one; a call site deeper than any before
   * takes the JDK's further batches once and raises it.
   */
  private final Map<Operation, AtomicInteger> depths = new ConcurrentHashMap<>();

  /** At most this many multipart uploads are followed at once; beyond, a step counts alone. */
  private static final int OPEN_UPLOADS = 10_000;

  /**
   * Multipart uploads begun and not yet completed, by client, bucket, key and hold: their parts and
   * completion are judged as every write is, but counted in the row of their start, as one logical
   * write. Which operations those are is each client's knowledge ({@link ClientAudit#multipart()}).
   * A step judged otherwise than its start (the lease lost meanwhile) finds no entry and is a row
   * of its own.
   */
  private final Map<String, SiteWrites> openUploads = new ConcurrentHashMap<>();

  private final AtomicBoolean recordedAny = new AtomicBoolean();
  private volatile Runnable onFirstWrite = () -> {};

  AuditRecorder(AuditSettings settings, List<ClientAudit> clients) {
    this.settings = settings;
    Map<String, ClientAudit> byId = new ConcurrentHashMap<>();
    List<String> libraries = new ArrayList<>();
    for (ClientAudit client : clients) {
      byId.put(client.id(), client);
      libraries.addAll(client.libraryPackages());
    }
    this.clients = byId;
    this.callSites = new CallSites(libraries, settings.libraryPackages());
  }

  @Override
  public String requiredFence(String client) {
    return settings.requiredFence(client);
  }

  @Override
  public boolean mapsFencedWrites() {
    return settings.map();
  }

  @Override
  public void unfenced(String client, String operation, Object target, String bucket, String key) {
    boolean enforce = settings.mode() == AuditMode.ENFORCE;
    Write write = new Write(client, target, bucket, key);
    SiteWrites row;
    try {
      // The walk starts here: every frame between it and the call site costs the walk.
      row =
          record(
              write,
              operation,
              CallSites.handedOver(callSites.find(depth(client, operation))),
              null,
              null,
              null);
      if (row == null) {
        return; // a library thread continuing a logical write judged where it started
      }
      if (!recordedAny.get() && recordedAny.compareAndSet(false, true)) {
        onFirstWrite.run();
      }
    } catch (RuntimeException | LinkageError e) {
      AgentLog.once(
          "audit-recorder-failure",
          "audit could not record an unfenced write of " + client + " " + operation + ": " + e);
      if (enforce) {
        throw new UnfencedWriteException(
            client, operation, bucket, key, null, requiredFence(client));
      }
      return;
    }
    if (UnfencedWriteEvents.AVAILABLE && FlightRecorder.isInitialized()) { // a recording may ask
      UnfencedWriteEvents.commit(client, operation, write.named(), row, enforce);
    }
    if (enforce) {
      row.refused.incrementAndGet();
      WriteTarget named = write.named();
      throw new UnfencedWriteException(
          client, operation, named.bucket(), named.key(), row.callSite, row.requiredFence);
    }
  }

  @Override
  public void fenced(
      String client,
      String operation,
      Object target,
      String bucket,
      String key,
      HeldFenceStack.Entry hold) {
    try {
      record(
          new Write(client, target, bucket, key),
          operation,
          callSites.find(depth(client, operation)),
          hold.fenceName(),
          hold.holderLabel(),
          hold.takenBy()); // a field the hold's taker set once: no walk
    } catch (RuntimeException | LinkageError e) {
      // A fenced write goes on whatever the map misses.
      AgentLog.once(
          "audit-map-failure",
          "audit could not record a fenced write of " + client + " " + operation + ": " + e);
    }
  }

  /**
   * Counts one write in the row of its call site and hold. A write already seen at its call site
   * costs the stack walk that finds the site, one map lookup and the count; its target is read only
   * when the row's key sample still has room, a multipart upload is followed, or the site is new,
   * and then once.
   *
   * @return the row, or {@code null} when the stack has no application frame
   */
  private SiteWrites record(
      Write write,
      String operation,
      Optional<CallSites.Site> callSite,
      String fenceName,
      String holderLabel,
      String fencedBy) {
    if (callSite.isEmpty()) {
      return null;
    }
    String client = write.client;
    learnDepth(client, operation, callSite.get().depth());
    String upload = null;
    MultipartUploads multipart = multipart(client);
    if (multipart.involves(operation)) {
      WriteTarget named = write.named();
      upload = String.join("\n", client, "" + named.bucket(), "" + named.key(), "" + fenceName);
      SiteWrites started =
          multipart.ends().contains(operation)
              ? openUploads.remove(upload)
              : openUploads.get(upload);
      if (started != null && multipart.steps().contains(operation)) {
        return started; // a step of a logical write counted at its start
      }
    }
    SiteWrites row =
        bySite.computeIfAbsent(
            new SiteKey(client, operation, callSite.get(), fenceName, holderLabel, fencedBy),
            k -> firstAt(k, write));
    row.seen();
    if (row.samplesKeys()) {
      row.sample(write.named().key());
    }
    if (upload != null
        && multipart.starts().contains(operation)
        && openUploads.size() < OPEN_UPLOADS) {
      openUploads.put(upload, row);
    }
    return row;
  }

  /** The client's own multipart uploads; none for a client the agent does not know. */
  private MultipartUploads multipart(String client) {
    ClientAudit audit = clients.get(client);
    return audit == null ? MultipartUploads.NONE : audit.multipart();
  }

  /**
   * The row of a call site and hold seen for the first time here: the expensive part (the frame's
   * file and line, the target described), done once per site. Two bytecode indexes on one line
   * share one row.
   */
  private SiteWrites firstAt(SiteKey k, Write write) {
    String callSite = k.site().describe();
    if (k.fenceName() == null) {
      annotated.check(callSite); // an unfenced write inside a @WriterFenced method: say so
    }
    WriteTarget named = write.named();
    return rows.computeIfAbsent(
        String.join(
            " ",
            k.client(),
            k.operation(),
            callSite,
            Objects.toString(k.fenceName()),
            Objects.toString(k.holderLabel()),
            Objects.toString(k.fencedBy())),
        any ->
            new SiteWrites(
                k.client(),
                k.operation(),
                callSite,
                named,
                Thread.currentThread().getName(),
                requiredFence(k.client()),
                k.fenceName(),
                k.holderLabel(),
                k.fencedBy(),
                k.site().libraryCall()));
  }

  /**
   * @return the deepest call site found so far for this client operation, 0 before the first: the
   *     size of the walk's first batch
   */
  private int depth(String client, String operation) {
    AtomicInteger depth = depths.get(new Operation(client, operation));
    return depth == null ? 0 : depth.get();
  }

  private void learnDepth(String client, String operation, int found) {
    AtomicInteger depth = depths.get(new Operation(client, operation));
    if (depth == null) {
      depth = depths.computeIfAbsent(new Operation(client, operation), k -> new AtomicInteger());
    }
    if (found > depth.get()) {
      depth.accumulateAndGet(found, Math::max);
    }
  }

  /**
   * @return the current thread's call site, to remember where it hands a task over; {@code null}
   *     when its stack has neither an application nor a wrapper frame
   */
  Object submitter() {
    return callSites.find().orElse(null);
  }

  /**
   * @param hook run once, on the thread of the first unfenced write recorded
   */
  void onFirstWrite(Runnable hook) {
    this.onFirstWrite = hook;
  }

  /**
   * One write as the gate passed it. Its bucket and object key are the text given, or else read
   * from the client's request object, by reflection for most clients: at most once per write.
   */
  private final class Write {
    final String client;
    private final Object target;
    private final String bucket;
    private final String key;
    private WriteTarget named;

    Write(String client, Object target, String bucket, String key) {
      this.client = client;
      this.target = target;
      this.bucket = bucket;
      this.key = key;
    }

    WriteTarget named() {
      if (named == null) {
        if (bucket != null || key != null) {
          named = new WriteTarget(bucket, key);
        } else {
          ClientAudit audit = clients.get(client);
          named = audit == null ? WriteTarget.reflect(target) : audit.describe(target);
        }
      }
      return named;
    }
  }

  /**
   * @return the unfenced writes so far, by client, operation and call site
   */
  List<SiteWrites> writes() {
    return sorted(false);
  }

  /**
   * @return the fenced writes so far (recorded only with {@code audit.map}), by client, operation,
   *     call site and fence name
   */
  List<SiteWrites> fencedWrites() {
    return sorted(true);
  }

  private List<SiteWrites> sorted(boolean fenced) {
    List<SiteWrites> list = new ArrayList<>();
    for (SiteWrites w : rows.values()) {
      if (w.isFenced() == fenced) {
        list.add(w);
      }
    }
    list.sort(
        Comparator.comparing((SiteWrites w) -> w.client)
            .thenComparing(w -> w.operation)
            .thenComparing(w -> w.callSite)
            .thenComparing(w -> Objects.toString(w.fenceName))
            .thenComparing(w -> Objects.toString(w.holderLabel))
            .thenComparing(w -> Objects.toString(w.fencedBy)));
    return list;
  }

  /**
   * @return the {@code @WriterFenced} methods that wrote with no fence held, each once
   */
  List<UnfencedAnnotatedMethods.Finding> annotatedButUnfenced() {
    return annotated.findings();
  }

  AuditMode mode() {
    return settings.mode();
  }

  boolean maps() {
    return settings.map();
  }
}
