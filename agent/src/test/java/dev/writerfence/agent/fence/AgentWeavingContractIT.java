package dev.writerfence.agent.fence;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.weaving.ForkedWeavingContract;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;

/**
 * The weaving contract through the agent: each expectation runs in a JVM started with the real
 * agent jar, which fences the contract's writers by their unwoven {@code @WriterFenced}. The
 * application's own copy of core (on the class path) takes the holds the agent must join, joins the
 * agent's, reads the leases the agent's relocated copy took and catches its busy answer by the
 * application's own exception class. Every expectation runs: none is skipped for the agent.
 */
class AgentWeavingContractIT extends ForkedWeavingContract {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();

  @TempDir Path dir;

  @Override
  protected String jdbcUrl() {
    return DB.jdbcUrl();
  }

  @Override
  protected String user() {
    return "postgres";
  }

  @Override
  protected List<String> jvmOptions() {
    return agentOptions(dir);
  }

  /**
   * @param dir where to write the agent's configuration
   * @return the JVM options that start the real agent jar on {@link #DB}
   */
  static List<String> agentOptions(Path dir) {
    Path config = LegacyJvm.config(dir, LegacyJvm.dataSource(DB).toArray(String[]::new));
    List<String> options = new ArrayList<>(ForkedJvm.DEFAULT_JVM_OPTIONS);
    options.add("-javaagent:" + LegacyJvm.AGENT_JAR + "=config=" + config);
    return options;
  }

  /**
   * Without this module's own classes, which failsafe puts on the class path as {@code
   * target/classes} or as the module's unshaded jar: the agent comes from its shaded jar alone, as
   * it does for users.
   */
  @Override
  protected String classPath() {
    return withoutOwnClasses(super.classPath());
  }

  /**
   * @param classPath the tests' class path
   * @return it without this module's own classes
   */
  static String withoutOwnClasses(String classPath) {
    Path target = Path.of("target").toAbsolutePath();
    return Arrays.stream(classPath.split(File.pathSeparator))
        .filter(
            e -> {
              Path p = Path.of(e).toAbsolutePath();
              boolean ownClasses = p.equals(target.resolve("classes"));
              boolean ownJar =
                  target.equals(p.getParent())
                      && p.getFileName().toString().startsWith("writer-fence-agent");
              return !ownClasses && !ownJar;
            })
        .collect(Collectors.joining(File.pathSeparator));
  }
}
