package dev.writerfence.agent.audit;

import dev.writerfence.internal.config.SettingsCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The audited storage clients: the {@link ClientAudit}s registered in the agent jar's {@code
 * META-INF/services}, in the order they are installed.
 */
public final class ClientAudits {
  private ClientAudits() {}

  /**
   * @return every registered client audit, in the order of its registration; never {@code null}
   * @throws IllegalStateException when the registered ids are not the settings catalog's {@link
   *     SettingsCatalog#AUDIT_CLIENTS} in the same order (a client registered in one place only:
   *     its {@code audit.require-fence.<id>} would be refused, or accepted for nothing)
   */
  public static List<ClientAudit> all() {
    List<ClientAudit> audits = new ArrayList<>();
    // The agent's own loader: the audits are classes of the agent jar, whatever loader the host
    // gives the thread that starts it.
    for (ClientAudit audit :
        ServiceLoader.load(ClientAudit.class, ClientAudit.class.getClassLoader())) {
      audits.add(audit);
    }
    List<String> ids = audits.stream().map(ClientAudit::id).toList();
    if (!ids.equals(SettingsCatalog.AUDIT_CLIENTS)) {
      throw new IllegalStateException(
          "writer-fence agent: the registered client audits "
              + ids
              + " are not the settings catalog's audited clients "
              + SettingsCatalog.AUDIT_CLIENTS
              + ": register each client in both, in one order");
    }
    return List.copyOf(audits);
  }
}
