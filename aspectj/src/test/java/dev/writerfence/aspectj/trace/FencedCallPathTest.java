package dev.writerfence.aspectj.trace;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.ListeningConnector;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.MethodEntryRequest;
import dev.writerfence.testing.EmbeddedDatabase;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Counts the project classes whose code runs for one uncontended {@code @WriterFenced} call woven
 * by AspectJ at compile time ({@link OneWovenCall}: lease-row backend, renewal and the JVM shutdown
 * hook on, the default listener), as docs/adr/0034-one-fenced-call-crosses-eight-classes.md lists
 * them, and how often the call doubles back to a class it had left. The call runs in a JVM of its
 * own under the JDK's debugger interface (JDI): from the entry of {@link TraceMarks#begin()} to
 * that of {@link TraceMarks#end()}, every method entered on the calling thread in a class of {@code
 * dev.writerfence} (outside this fixture's package) is recorded, in order; nested, anonymous,
 * lambda and record classes count with their top-level class. Work the call hands to other threads
 * (the renewal timer) is not the call's path.
 *
 * <p>Counted on that sequence of method entries, each named by its top-level class:
 *
 * <ul>
 *   <li>a <b>stay</b> is a run of consecutive entries in one class (entries of the JDK or of a
 *       library between them do not break it: only project classes are recorded);
 *   <li>a <b>return</b> is a stay in a class that an earlier stay of the sequence was in already:
 *       the call entered that class, left it for another, and came back. A sequence of {@code s}
 *       stays in {@code c} classes has {@code s - c} returns; a call read top to bottom, each class
 *       entered once, has none.
 * </ul>
 */
class FencedCallPathTest {
  /**
   * The most project classes one fenced call may cross: 8 until issue 26 (ADR 34), which split the
   * hold's life into the flow ({@code FencedCallFlow}), the local turn ({@code LocalTurns}), the
   * hold ({@code HeldLease}) and the renewing lease ({@code RenewingLease}), and gave the weaving
   * entry one value ({@code FencedCalls.Call}) in place of eight positional parameters; the JDBC
   * stores' one statement frame ({@code Statements}) is the twelfth. ADR 60 says why these classes
   * stay on the path.
   */
  private static final int MAX_CLASSES = 12;

  /**
   * The most returns to a class already left: 19 before issue 26's flow, 13 after it. What is left
   * is the call's own shape: the held-fence stack is visited three times (join check, push, pop),
   * the store twice (acquire, release), each statement going once into the shared frame and back,
   * the argument rules twice (the fence name, then the store's TTL), the checked call read by the
   * flow, the turn twice (take and queue for waiters, give back), the hold and its renewing lease
   * at enter and at exit, and the advice around the method.
   */
  private static final int MAX_RETURNS = 13;

  @Test
  void oneWovenCallCrossesFewProjectClassesAndSeldomDoublesBack() throws Exception {
    List<String> entries = traceOneCall();
    Map<String, String> classes = new TreeMap<>();
    for (String entry : entries) {
      classes.putIfAbsent(topLevel(entry), entry);
    }
    List<String> stays = stays(entries);
    System.out.printf(
        "FencedCallPathTest: %d classes, %d stays, %d returns:%n  %s%n",
        classes.size(), stays.size(), stays.size() - classes.size(), String.join("\n  ", stays));

    assertThat(stays.size() - classes.size())
        .as("returns to a class already left (stays less classes); stays:%n%s", stays)
        .isLessThanOrEqualTo(MAX_RETURNS);
    assertThat(classes)
        .as("top-level project classes entered by the call, each with its first method")
        // The trace sees the call's whole path: the advice, the fence, the database, the hold.
        .containsKeys(
            "dev.writerfence.aspectj.WriterFencedAspect",
            "dev.writerfence.FencedCallFlow",
            "dev.writerfence.HeldLease",
            "dev.writerfence.store.lease.PgLeaseStore",
            "dev.writerfence.bootstrap.HeldFenceStack")
        .hasSizeLessThanOrEqualTo(MAX_CLASSES);
  }

  /** The stays of a sequence of entries: consecutive entries of one top-level class collapsed. */
  private static List<String> stays(List<String> entries) {
    List<String> stays = new ArrayList<>();
    String previous = null;
    for (String entry : entries) {
      String type = topLevel(entry);
      if (!type.equals(previous)) {
        stays.add(type + " (" + entry.substring(entry.lastIndexOf('.') + 1) + ")");
        previous = type;
      }
    }
    return stays;
  }

  /** The top-level class of an entry recorded as {@code type.method}. */
  private static String topLevel(String entry) {
    String type = entry.substring(0, entry.lastIndexOf('.'));
    int nested = type.indexOf('$');
    return nested < 0 ? type : type.substring(0, nested);
  }

  /**
   * Runs {@link OneWovenCall} under JDI; the methods entered during the counted call, in order, as
   * {@code type.method}.
   */
  private static List<String> traceOneCall() throws Exception {
    ListeningConnector connector =
        Bootstrap.virtualMachineManager().listeningConnectors().stream()
            .filter(c -> c.name().equals("com.sun.jdi.SocketListen"))
            .findFirst()
            .orElseThrow();
    Map<String, Connector.Argument> arguments = connector.defaultArguments();
    arguments.get("localAddress").setValue("127.0.0.1");
    arguments.get("port").setValue("0");
    String address = connector.startListening(arguments);
    File output = Files.createTempFile("writer-fence-trace-", ".out").toFile();
    output.deleteOnExit();
    Process process = null;
    try {
      process = start(address, output);
      VirtualMachine vm = connector.accept(arguments);
      List<String> classes = record(vm);
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the traced JVM ended").isTrue();
      String out = Files.readString(output.toPath(), StandardCharsets.UTF_8);
      assertThat(process.exitValue()).as("exit status; output:%n%s", out).isZero();
      assertThat(out).as("both calls ran their body").contains("RESULT calls=2");
      return classes;
    } finally {
      connector.stopListening(arguments);
      if (process != null && process.isAlive()) {
        process.destroyForcibly();
      }
    }
  }

  private static Process start(String debuggerAddress, File output) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    String port = debuggerAddress.substring(debuggerAddress.lastIndexOf(':') + 1);
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    command.add("-agentlib:jdwp=transport=dt_socket,server=n,suspend=y,address=127.0.0.1:" + port);
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(OneWovenCall.class.getName());
    command.add(EmbeddedDatabase.get().jdbcUrl());
    command.add("trace-" + System.nanoTime());
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start();
  }

  /**
   * Stops at {@link TraceMarks#begin()}, records every project method entered on that thread until
   * {@link TraceMarks#end()}, then lets the JVM run to its end.
   */
  private static List<String> record(VirtualMachine vm) throws InterruptedException {
    EventRequestManager requests = vm.eventRequestManager();
    MethodEntryRequest marks = requests.createMethodEntryRequest();
    marks.addClassFilter(TraceMarks.class.getName());
    marks.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
    marks.enable();
    MethodEntryRequest project = null;
    List<String> entries = new ArrayList<>();
    boolean tracing = false;
    vm.resume();
    while (true) {
      EventSet events = vm.eventQueue().remove(60_000);
      if (events == null) {
        throw new AssertionError("no event from the traced JVM within 60 s");
      }
      for (Event event : events) {
        if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent) {
          assertThat(tracing).as("the trace ended at TraceMarks.end()").isFalse();
          assertThat(project).as("the trace began at TraceMarks.begin()").isNotNull();
          return entries;
        }
        if (!(event instanceof MethodEntryEvent entry)) {
          continue;
        }
        String type = entry.method().declaringType().name();
        if (entry.request() == marks) {
          if (entry.method().name().equals("begin")) {
            ThreadReference thread = entry.thread();
            project = requests.createMethodEntryRequest();
            project.addClassFilter("dev.writerfence.*");
            project.addClassExclusionFilter(TraceMarks.class.getPackageName() + ".*");
            project.addThreadFilter(thread);
            project.setSuspendPolicy(EventRequest.SUSPEND_NONE);
            project.enable();
            tracing = true;
          } else {
            project.disable();
            marks.disable();
            tracing = false;
          }
        } else if (tracing) {
          entries.add(type + "." + entry.method().name());
        }
      }
      events.resume();
    }
  }
}
