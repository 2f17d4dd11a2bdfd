package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.sites.TwoCallSites;
import dev.writerfence.WriterFence;
import dev.writerfence.bootstrap.CarriedTasks;
import dev.writerfence.bootstrap.HandOvers;
import dev.writerfence.config.ProcessFence;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.lease.PgLeaseStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.example.wrapper.BucketTemplate;
import org.junit.jupiter.api.Test;

class CallSitesTest {
  private final CallSites sites = new CallSites(List.of("software.amazon.awssdk."));

  @Test
  void jdkLibraryWriterFenceAndProxiesAreNotTheApplication() {
    assertThat(sites.isApplication("java.util.concurrent.FutureTask")).isFalse();
    assertThat(sites.isApplication("software.amazon.awssdk.services.s3.DefaultS3Client")).isFalse();
    assertThat(sites.isApplication("dev.writerfence.WriterFence")).isFalse();
    assertThat(sites.isApplication("dev.writerfence.context.HeldFences")).isFalse();
    assertThat(sites.isApplication("dev.writerfence.agent.audit.AuditRecorder")).isFalse();
    assertThat(sites.isApplication("com.acme.Uploader$$SpringCGLIB$$0")).isFalse();
    assertThat(sites.isApplication("jdk.proxy2.$Proxy12")).isFalse();
  }

  @Test
  void applicationClassesAreTheApplication() {
    assertThat(sites.isApplication("com.acme.sync.Uploader")).isTrue();
    assertThat(sites.isApplication("com.acme.sync.Uploader$Job")).isTrue();
    assertThat(sites.isApplication("dev.writerfence.samples.legacy.Writer")).isTrue();
  }

  @Test
  void everyClassOfCoreAtAnyDepthIsWriterFencesOwn() throws Exception {
    List<String> core = classesBeside(WriterFence.class);

    assertThat(core)
        .contains(
            FenceSchema.class.getName(),
            PgLeaseStore.class.getName(),
            FencedMethods.class.getName(),
            ProcessFence.class.getName());
    assertThat(core).allSatisfy(c -> assertThat(sites.isApplication(c)).as(c).isFalse());
  }

  @Test
  void projectPackagesAreDerivedFromCoreAndTheAgentNotListed() {
    assertThat(ProjectPackages.packagesBelow(WriterFence.class))
        .contains("config", "context", "retry", "schema", "store", "internal")
        .doesNotContain("agent", "samples");
    assertThat(ProjectPackages.prefixes())
        .contains(
            "dev.writerfence.agent.",
            "dev.writerfence.bootstrap.",
            "dev.writerfence.audit.",
            "dev.writerfence.schema.",
            "dev.writerfence.aspectj.",
            "dev.writerfence.spring.")
        .allSatisfy(p -> assertThat(p).startsWith("dev.writerfence.").endsWith("."));
    assertThat(sites.isApplication("dev.writerfence.demo.LegacyWriter")).isTrue();
  }

  @Test
  void aSiteIsTheFirstApplicationFrameAndEqualOnlyForTheSamePlace() {
    Object[] found = TwoCallSites.find(() -> sites.find().orElseThrow());
    CallSites.Site first = (CallSites.Site) found[0];
    CallSites.Site again = (CallSites.Site) found[1];
    CallSites.Site other = (CallSites.Site) found[2];

    assertThat(first).isEqualTo(again).hasSameHashCodeAs(again).isNotEqualTo(other);
    assertThat(first.describe())
        .matches("com\\.acme\\.sites\\.TwoCallSites\\.find\\(TwoCallSites\\.java:\\d+\\)");
    assertThat(other.describe()).isNotEqualTo(first.describe());
  }

  @Test
  void theFirstBatchSizeChangesWhatAWalkCostsNotWhatItFinds() {
    int[] depths = {0, 1, 2, 3, CallSites.MAX_ESTIMATE, CallSites.MAX_ESTIMATE + 10};
    List<CallSites.Site> found = new ArrayList<>();
    for (int depth : depths) {
      found.add(TwoCallSites.viaWrapper(() -> sites.find(depth).orElseThrow()));
    }
    CallSites.Site unknown = found.get(0);

    assertThat(found).allSatisfy(s -> assertThat(s).isEqualTo(unknown));
    assertThat(found).extracting(CallSites.Site::describe).containsOnly(unknown.describe());
    // find itself, the lambda, viaWrapper: the depth that sizes the next walk, whatever the batch
    assertThat(found).extracting(CallSites.Site::depth).containsOnly(unknown.depth());
    assertThat(unknown.describe())
        .matches("com\\.acme\\.sites\\.TwoCallSites\\.viaWrapper\\(TwoCallSites\\.java:\\d+\\)");
  }

  @Test
  void wrapperLibrariesAreNeitherTheApplicationNorSkippedSilently() {
    CallSites withOwn = new CallSites(List.of("software.amazon.awssdk."), List.of("com.acme.s3."));

    assertThat(sites.role("io.awspring.cloud.s3.S3Template")).isEqualTo(CallSites.Role.WRAPPER);
    assertThat(sites.role("io.awspring.cloud.s3.InMemoryBufferingS3OutputStream"))
        .isEqualTo(CallSites.Role.WRAPPER);
    assertThat(sites.role("org.apache.camel.component.aws2.s3.AWS2S3Producer"))
        .isEqualTo(CallSites.Role.WRAPPER);
    assertThat(sites.role("org.apache.hadoop.fs.s3a.S3AFileSystem"))
        .isEqualTo(CallSites.Role.WRAPPER);
    assertThat(sites.role("org.springframework.integration.aws.outbound.S3MessageHandler"))
        .isEqualTo(CallSites.Role.WRAPPER);
    assertThat(sites.role("org.springframework.context.support.AbstractApplicationContext"))
        .isEqualTo(CallSites.Role.OTHER);
    assertThat(sites.role("com.acme.s3.Template")).isEqualTo(CallSites.Role.APPLICATION);
    assertThat(withOwn.role("com.acme.s3.Template")).isEqualTo(CallSites.Role.WRAPPER);
  }

  @Test
  void aSiteCalledThroughAWrapperIsTheApplicationsLineWithTheWrappersBesideIt() {
    CallSites withWrapper =
        new CallSites(List.of("software.amazon.awssdk."), List.of("org.example.wrapper"));

    CallSites.Site site =
        TwoCallSites.viaWrapper(() -> BucketTemplate.store(() -> withWrapper.find().orElseThrow()));

    assertThat(site.describe())
        .matches("com\\.acme\\.sites\\.TwoCallSites\\.viaWrapper\\(TwoCallSites\\.java:\\d+\\)");
    assertThat(site.libraryCall())
        .matches(
            "org\\.example\\.wrapper\\.BucketTemplate\\.store\\(BucketTemplate\\.java:\\d+\\)");
  }

  @Test
  void aWrapperSiteOnAHandedOverTaskNamesTheSubmitterAndAnApplicationSiteStaysItself()
      throws Exception {
    CallSites withWrapper =
        new CallSites(List.of("software.amazon.awssdk."), List.of("org.example.wrapper"));
    CallSites.Site submitter = TwoCallSites.viaWrapper(() -> withWrapper.find().orElseThrow());
    List<Optional<CallSites.Site>> found = Collections.synchronizedList(new ArrayList<>());
    Runnable libraryTask =
        () -> found.add(CallSites.handedOver(BucketTemplate.store(() -> withWrapper.find())));

    HandOvers.recordSubmitters(() -> submitter);
    Runnable handedOver;
    try {
      handedOver = CarriedTasks.handOff(libraryTask);
    } finally {
      HandOvers.recordSubmitters(null);
    }
    runOnNewThread(handedOver); // a stack with no application frame, as a pool's thread has
    runOnNewThread(libraryTask); // not handed over through the agent
    found.add(CallSites.handedOver(Optional.of(submitter))); // an application site

    assertThat(handedOver).isNotSameAs(libraryTask);
    assertThat(found).allSatisfy(s -> assertThat(s).isPresent());
    assertThat(found.get(0).orElseThrow().describe())
        .matches(
            "org\\.example\\.wrapper\\.BucketTemplate\\.store\\(BucketTemplate\\.java:\\d+\\)"
                + " handed over from "
                + "com\\.acme\\.sites\\.TwoCallSites\\.viaWrapper\\(TwoCallSites\\.java:\\d+\\)");
    assertThat(found.get(0).orElseThrow()).isNotEqualTo(found.get(1).orElseThrow());
    assertThat(found.get(1).orElseThrow().describe())
        .matches(
            "org\\.example\\.wrapper\\.BucketTemplate\\.store\\(BucketTemplate\\.java:\\d+\\)");
    assertThat(found.get(2).orElseThrow()).isSameAs(submitter);
  }

  private static void runOnNewThread(Runnable task) throws InterruptedException {
    Thread thread = new Thread(task);
    thread.start();
    thread.join();
  }

  /** Every class in the jar or folder of {@code anchor}, at any depth: read apart from the code. */
  private static List<String> classesBeside(Class<?> anchor) throws Exception {
    Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(location)) {
      try (Stream<Path> files = Files.walk(location)) {
        files
            .map(location::relativize)
            .map(Path::toString)
            .filter(n -> n.endsWith(".class"))
            .forEach(names::add);
      }
    } else {
      try (JarFile jar = new JarFile(location.toFile())) {
        Collections.list(jar.entries()).stream()
            .map(e -> e.getName())
            .filter(n -> n.endsWith(".class") && !n.startsWith("META-INF/"))
            .forEach(names::add);
      }
    }
    return names.stream()
        .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
        .filter(n -> !n.endsWith("package-info"))
        .toList();
  }
}
