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
    WriteTarget named;
    try {
      Optional<String> callSite = callSites.find();
      if (callSite.isEmpty()) {
        return; // a library thread continuing a logical write judged where it started
      }
      named =
          bucket != null || key != null ? new WriteTarget(bucket, key) : describe(client, target);
      write =
          writes.computeIfAbsent(
              client + ' ' + operation + ' ' + callSite.get(),
              k ->
                  new UnfencedWrite(
                      client,
                      operation,
                      callSite.get(),
                      named,
                      Thread.currentThread().getName(),
                      requiredFence(client)));
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
      throw new UnfencedWriteException(
          client, operation, named.bucket(), named.key(), write.callSite, write.requiredFence);
    }
  }

  /**
   * @param hook run once, on the thread of the first unfenced write recorded
   */
  void onFirstWrite(Runnable hook) {
    this.onFirstWrite = hook;
  }

  private WriteTarget describe(String client, Object target) {
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
