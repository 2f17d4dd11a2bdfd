package dev.writerfence.agent.audit;

import dev.writerfence.bootstrap.HandOvers;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the call site of a write: the first stack frame, from the top, that belongs to the
 * application, skipping the JDK, writer-fence itself, the storage client libraries, the libraries
 * that wrap them (Spring Cloud AWS, Apache Camel, Hadoop's S3A, Spring Integration AWS, and {@code
 * audit.library-packages}), and generated proxies. The wrapper's frame nearest the application is
 * kept beside it, to be shown.
 *
 * <p>A write with no application frame runs on a library's own thread. With a wrapper frame on it
 * (a Camel route's producer), that frame is its call site: a write is never passed for want of an
 * application frame when a wrapper made it. With neither (a multipart part, an async continuation
 * of the storage client itself) it belongs to a logical write that was judged on the thread that
 * started it. A wrapper's frame on a thread running a task handed over through a JDK executor names
 * the application frame that submitted the task too ({@link #handedOver}).
 */
final class CallSites {
  /**
   * The project's root package, {@code dev.writerfence}. Built at run time, because the shaded
   * jar's relocation rewrites every string constant that starts with it.
   */
  static final String PROJECT = String.join(".", "dev", "writerfence");

  /**
   * The first batch of a walk when nothing is known yet of where the call site lies; a deeper call
   * site only takes a second batch.
   */
  static final int ESTIMATED_DEPTH = 12;

  /** The largest first batch asked for; a deeper call site takes the JDK's further batches. */
  static final int MAX_ESTIMATE = 40;

  /**
   * Frames to ask for beyond the depth of the call site: Java 17 fills two frames fewer into the
   * first batch than the estimate it is given (measured; Java 25 none, where the two cost about 170
   * ns).
   */
  static final int BATCH_SLACK = 2;

  /**
   * Frames never taken for the application's: the JDK and the frameworks around writer-fence, whose
   * own packages are {@link ProjectPackages}.
   */
  private static final List<String> ALWAYS_SKIPPED =
      List.of(
          "java.",
          "javax.",
          "jdk.",
          "sun.",
          "com.sun.",
          "kotlin.",
          "scala.",
          "net.bytebuddy.",
          "org.springframework.",
          "org.aspectj.",
          "io.netty.",
          "org.reactivestreams.",
          "reactor.");

  /**
   * Libraries that wrap the storage clients, whose frames stand between the application and the
   * client: skipped for the call site, kept beside it. Checked before {@link #ALWAYS_SKIPPED},
   * which would take Spring Integration's for framework plumbing.
   */
  static final List<String> WRAPPER_LIBRARIES =
      List.of(
          "io.awspring.cloud.",
          "org.apache.camel.",
          "org.apache.hadoop.fs.s3a.",
          "org.springframework.integration.aws.");

  /** What a frame's class is to the walk. */
  enum Role {
    APPLICATION,
    WRAPPER,
    OTHER
  }

  private final String[] skipped;
  private final String[] wrappers;

  /** A class's role, decided once per class (the walk asks per frame). */
  private final ClassValue<Role> roles =
      new ClassValue<>() {
        @Override
        protected Role computeValue(Class<?> type) {
          return role(type.getName());
        }
      };

  /**
   * A walker per first batch size. The JDK fills and resolves every frame of a batch, about 125 ns
   * each on Java 17, whether the walk reads it or not, and a second batch costs more than a few
   * frames too many: the batch that ends at the call site is the cheapest walk.
   */
  private final StackWalker[] walkers = new StackWalker[MAX_ESTIMATE + 1];

  /**
   * @param libraryPackages the package prefixes of the audited client libraries
   */
  CallSites(List<String> libraryPackages) {
    this(libraryPackages, List.of());
  }

  /**
   * @param libraryPackages the package prefixes of the audited client libraries
   * @param wrapperPackages more package prefixes of libraries that wrap them ({@code
   *     audit.library-packages}), beside {@link #WRAPPER_LIBRARIES}
   */
  CallSites(List<String> libraryPackages, List<String> wrapperPackages) {
    List<String> all = new ArrayList<>(ALWAYS_SKIPPED);
    all.addAll(libraryPackages);
    this.skipped = all.toArray(new String[0]);
    List<String> wrap = new ArrayList<>(WRAPPER_LIBRARIES);
    wrap.addAll(wrapperPackages);
    this.wrappers = wrap.toArray(new String[0]);
    for (int i = 1; i <= MAX_ESTIMATE; i++) {
      walkers[i] = StackWalker.getInstance(Set.of(StackWalker.Option.RETAIN_CLASS_REFERENCE), i);
    }
  }

  /**
   * The first application frame of the calling thread, as a key that is cheap to compare: the
   * frame's class, method and bytecode index, with the wrapper frame nearest it. Resolving file and
   * line is left to {@link Site#describe()}, which the recorder calls only for a call site it has
   * not seen.
   *
   * @return the frame; a wrapper's frame when the stack has no application frame but one of a
   *     wrapper; empty when it has neither
   */
  Optional<Site> find() {
    return find(0);
  }

  /**
   * As {@link #find()}, with the walk's first batch sized to where the call site was found before.
   *
   * @param depth the {@link Site#depth()} of an earlier call site found from the same caller (of
   *     the same operation), or 0 when unknown; only the walk's cost depends on it
   * @return as {@link #find()}
   */
  Optional<Site> find(int depth) {
    int estimate = depth <= 0 ? ESTIMATED_DEPTH : Math.min(depth + BATCH_SLACK, MAX_ESTIMATE);
    return walkers[estimate].walk(
        frames -> {
          StackWalker.StackFrame firstWrapper = null;
          StackWalker.StackFrame nearestWrapper = null;
          int firstWrapperAt = 0;
          int at = 0;
          for (StackWalker.StackFrame f : (Iterable<StackWalker.StackFrame>) frames::iterator) {
            at++;
            Role role = roles.get(f.getDeclaringClass());
            if (role == Role.APPLICATION) {
              return Optional.of(new Site(f, nearestWrapper, at));
            }
            if (role == Role.WRAPPER) {
              nearestWrapper = f;
              if (firstWrapper == null) {
                firstWrapper = f;
                firstWrapperAt = at;
              }
            }
          }
          int wrapperAt = firstWrapperAt;
          return Optional.ofNullable(firstWrapper)
              .map(w -> new Site(w, null, wrapperAt, true, null));
        });
  }

  /**
   * One frame of application code (or of a wrapper, where no application frame was): equal for the
   * same class, method and bytecode index, which is all a repeated write from one place needs to be
   * recognised.
   */
  static final class Site {
    private final StackWalker.StackFrame frame;
    private final StackWalker.StackFrame wrapper; // null: the call went to the client directly
    private final Class<?> type;
    private final String method;
    private final int bci;
    private final int depth;
    private final boolean library; // a wrapper library's frame: the stack had no application frame
    private final Site from; // null: not named by the hand-over that brought the write here

    Site(StackWalker.StackFrame frame, StackWalker.StackFrame wrapper, int depth) {
      this(frame, wrapper, depth, false, null);
    }

    private Site(
        StackWalker.StackFrame frame,
        StackWalker.StackFrame wrapper,
        int depth,
        boolean library,
        Site from) {
      this.frame = frame;
      this.wrapper = wrapper;
      this.depth = depth;
      this.library = library;
      this.from = from;
      this.type = frame.getDeclaringClass();
      this.method = frame.getMethodName();
      this.bci = frame.getByteCodeIndex();
    }

    /**
     * @return the frame's position on the stack, {@link CallSites#find(int)} itself being 1; not
     *     part of the site's identity
     */
    int depth() {
      return depth;
    }

    /**
     * @return {@code true} when this is a wrapper library's frame, the stack having no application
     *     frame
     */
    boolean isLibrary() {
      return library;
    }

    /**
     * @param submitter the call site of the thread that handed the running task over
     * @return this site, described as handed over from {@code submitter}
     */
    Site handedOverFrom(Site submitter) {
      return new Site(frame, wrapper, depth, library, submitter);
    }

    /**
     * @return {@code class.method(File.java:line)}, followed by {@code handed over from
     *     class.method(File.java:line)} when the write's own stack named only a library and the
     *     task it ran in was handed over from an application frame
     */
    String describe() {
      return from == null
          ? describe(frame)
          : describe(frame) + " handed over from " + from.describe();
    }

    /**
     * @return the wrapper library's frame the application called, {@code class.method(File:line)},
     *     or {@code null} when it called the storage client itself
     */
    String libraryCall() {
      return wrapper == null ? null : describe(wrapper);
    }

    private static String describe(StackWalker.StackFrame f) {
      return f.getClassName()
          + "."
          + f.getMethodName()
          + "("
          + f.getFileName()
          + ":"
          + f.getLineNumber()
          + ")";
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Site other
          && type == other.type
          && bci == other.bci
          && method.equals(other.method)
          && Objects.equals(from, other.from);
    }

    @Override
    public int hashCode() {
      return ((System.identityHashCode(type) * 31 + method.hashCode()) * 31 + bci) * 31
          + Objects.hashCode(from);
    }
  }

  /**
   * The call site of a write as the task it runs in names it: a site that is only a wrapper
   * library's frame, on a thread running a task handed over through a JDK executor while the audit
   * recorded hand-overs, is described with the submitter's call site.
   *
   * @param site the write's own call site, as {@link #find(int)} gave it
   * @return {@code site}, or it handed over from the submitter
   */
  static Optional<Site> handedOver(Optional<Site> site) {
    if (site.isEmpty() || !site.get().isLibrary()) {
      return site;
    }
    return HandOvers.current() instanceof Site submitter
        ? Optional.of(site.get().handedOverFrom(submitter))
        : site;
  }

  boolean isApplication(String className) {
    return role(className) == Role.APPLICATION;
  }

  Role role(String className) {
    if (className.contains("$$")) {
      return Role.OTHER; // generated proxies and lambdas forms (Spring CGLIB, Byte Buddy, JDK)
    }
    for (String prefix : wrappers) {
      if (className.startsWith(prefix)) {
        return Role.WRAPPER;
      }
    }
    return isOther(className) ? Role.OTHER : Role.APPLICATION;
  }

  private boolean isOther(String className) {
    int lastDot = className.lastIndexOf('.');
    if (lastDot > 0 && className.substring(0, lastDot).equals(PROJECT)) {
      return true;
    }
    for (String prefix : skipped) {
      if (className.startsWith(prefix)) {
        return true;
      }
    }
    for (String prefix : ProjectPackages.prefixes()) {
      if (className.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
