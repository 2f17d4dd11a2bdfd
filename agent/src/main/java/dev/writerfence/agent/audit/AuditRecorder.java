package dev.writerfence.agent.audit;

import dev.writerfence.agent.AgentLog;
import dev.writerfence.audit.UnfencedWriteException;
import dev.writerfence.bootstrap.AuditGate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The agent's {@link AuditGate.Sink}: records each unfenced write once per call site (client,
 * operation, first application frame) with a count, and in enforce mode refuses it.
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
  private final Map<String, UnfencedWrite> writes = new ConcurrentHashMap<>();

  /** The same records, by the cheap key of their call site: what a repeated write looks up. */
  private final Map<SiteKey, UnfencedWrite> bySite = new ConcurrentHashMap<>();

  private record SiteKey(String client, String operation, CallSites.Site site) {}

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
    this.callSites = new CallSites(libraries);
  }

  @Override
  public String requiredFence(String client) {
    return settings.requiredFence(client);
  }

  @Override
  public void unfenced(String client, String operation, Object target, String bucket, String key) {
    boolean enforce = settings.mode() == AuditMode.ENFORCE;
    UnfencedWrite write;
    try {
      Optional<CallSites.Site> callSite = callSites.find();
      if (callSite.isEmpty()) {
        return; // a library thread continuing a logical write judged where it started
      }
      write =
          bySite.computeIfAbsent(
              new SiteKey(client, operation, callSite.get()),
              k -> firstAt(client, operation, callSite.get(), target, bucket, key));
      write.count.incrementAndGet();
      if (recordedAny.compareAndSet(false, true)) {
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
    if (enforce) {
      write.refused.incrementAndGet();
      WriteTarget named = target(client, target, bucket, key);
      throw new UnfencedWriteException(
          client, operation, named.bucket(), named.key(), write.callSite, write.requiredFence);
    }
  }

  /**
   * The record of a call site seen for the first time here: the expensive part (the frame's file
   * and line, the target described), done once per site. Two bytecode indexes on one line share one
   * record.
   */
  private UnfencedWrite firstAt(
      String client,
      String operation,
      CallSites.Site site,
      Object target,
      String bucket,
      String key) {
    String callSite = site.describe();
    WriteTarget named = target(client, target, bucket, key);
    return writes.computeIfAbsent(
        client + ' ' + operation + ' ' + callSite,
        k ->
            new UnfencedWrite(
                client,
                operation,
                callSite,
                named,
                Thread.currentThread().getName(),
                requiredFence(client)));
  }

  /**
   * @param hook run once, on the thread of the first unfenced write recorded
   */
  void onFirstWrite(Runnable hook) {
    this.onFirstWrite = hook;
  }

  /** The bucket and object key given, or else read from the client's request object. */
  private WriteTarget target(String client, Object target, String bucket, String key) {
    if (bucket != null || key != null) {
      return new WriteTarget(bucket, key);
    }
    ClientAudit audit = clients.get(client);
    return audit == null ? WriteTarget.reflect(target) : audit.describe(target);
  }

  /**
   * @return the unfenced writes so far, by client, operation and call site
   */
  List<UnfencedWrite> writes() {
    List<UnfencedWrite> list = new ArrayList<>(writes.values());
    list.sort(
        Comparator.comparing((UnfencedWrite w) -> w.client)
            .thenComparing(w -> w.operation)
            .thenComparing(w -> w.callSite));
    return list;
  }

  AuditMode mode() {
    return settings.mode();
  }
}
