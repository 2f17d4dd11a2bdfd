package com.acme.legacy;

import com.sun.tools.attach.VirtualMachine;

/**
 * A legacy application whose writer class the agent may refuse: it loads the writer by name and
 * calls its {@code upload()}, twice, printing what happened each time ({@code upload returned} or
 * {@code not loaded: <the error's message>}). Given the agent jar too, it loads the writer first,
 * then attaches the agent to itself ({@code -Djdk.attach.allowAttachSelf=true}), as the audit
 * command attaches it to a running JVM, and calls it after.
 */
public final class UploadApp {
  private UploadApp() {}

  /**
   * @param args the writer's binary name, and optionally the agent jar to attach after loading it
   * @throws Exception when the writer cannot be called or the agent cannot be attached
   */
  public static void main(String[] args) throws Exception {
    if (args.length > 1) {
      Class<?> writer = Class.forName(args[0]);
      VirtualMachine self = VirtualMachine.attach(Long.toString(ProcessHandle.current().pid()));
      try {
        self.loadAgent(args[1]);
      } finally {
        self.detach();
      }
      upload(writer);
      return;
    }
    for (int i = 0; i < 2; i++) {
      try {
        upload(Class.forName(args[0]));
      } catch (NoClassDefFoundError e) {
        System.out.println("not loaded: " + e.getMessage());
      }
    }
  }

  private static void upload(Class<?> writer) throws ReflectiveOperationException {
    writer.getMethod("upload").invoke(writer.getConstructor().newInstance());
    System.out.println("upload returned");
  }
}
