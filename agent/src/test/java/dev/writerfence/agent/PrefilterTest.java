package dev.writerfence.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.legacy.HelloApp;
import com.example.fenced.unwoven.UnwovenWriter;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What reaches Byte Buddy: names, packages and the raw-bytes search for the annotation. */
class PrefilterTest {
  private static final String ANNOTATION = "dev.writerfence.annotation.WriterFenced";
  private static final ClassLoader APP = PrefilterTest.class.getClassLoader();

  @Test
  void exactNamesPassOnlyThoseClasses() throws IOException {
    Prefilter p = Prefilter.named(Set.of("com.acme.legacy.HelloApp", "com.acme.Outer$Inner"));

    assertThat(p.mightInstrument("com/acme/legacy/HelloApp", APP, bytes(HelloApp.class))).isTrue();
    assertThat(p.mightInstrument("com/acme/Outer$Inner", APP, new byte[0])).isTrue();
    assertThat(p.mightInstrument("com/acme/legacy/HelloAppX", APP, new byte[0])).isFalse();
    assertThat(p.mightInstrument("com/acme/Outer", APP, new byte[0])).isFalse();
  }

  @Test
  void packagePrefixesPassTheirClassesFromAnyLoader() {
    Prefilter p = Prefilter.packages(List.of("software.amazon.awssdk.services.s3."));

    assertThat(p.mightInstrument("software/amazon/awssdk/services/s3/S3Client", null, new byte[0]))
        .isTrue();
    assertThat(p.mightInstrument("software/amazon/awssdk/core/Sdk", APP, new byte[0])).isFalse();
  }

  @Test
  void annotationScanPassesClassFilesNamingTheDescriptorOnly() throws IOException {
    Prefilter p = Prefilter.mentioning(ANNOTATION, List.of("java.", "dev.writerfence.agent."));

    assertThat(
            p.mightInstrument(
                "com/example/fenced/unwoven/UnwovenWriter", APP, bytes(UnwovenWriter.class)))
        .isTrue();
    assertThat(p.mightInstrument("com/acme/legacy/HelloApp", APP, bytes(HelloApp.class))).isFalse();
  }

  /** {@code @WriterFenced} is {@code @Inherited}: a subclass of a passed class passes too. */
  @Test
  void annotationScanPassesSubclassesOfClassesThatPassed() throws IOException {
    Prefilter p = Prefilter.mentioning(ANNOTATION, List.of("java.", "dev.writerfence.agent."));
    String sub = "com/example/fenced/InheritingWriter"; // its own package is never scanned
    byte[] subBytes = bytes(InheritingWriter.class);
    assertThat(p.mightInstrument(sub, APP, subBytes)).as("before its superclass").isFalse();

    assertThat(
            p.mightInstrument(
                "com/example/fenced/unwoven/UnwovenWriter", APP, bytes(UnwovenWriter.class)))
        .isTrue();
    assertThat(p.mightInstrument(sub, APP, subBytes)).as("after its superclass").isTrue();
    assertThat(p.mightInstrument("com/acme/legacy/HelloApp", APP, bytes(HelloApp.class))).isFalse();
  }

  /** A subclass of an annotated writer that does not name the annotation itself. */
  static class InheritingWriter extends UnwovenWriter {}

  @Test
  void annotationScanSkipsTheBootstrapLoaderAndExcludedPackages() throws IOException {
    Prefilter p = Prefilter.mentioning(ANNOTATION, List.of("java.", "dev.writerfence.agent."));
    byte[] annotated = bytes(UnwovenWriter.class);

    assertThat(p.mightInstrument("com/example/fenced/unwoven/UnwovenWriter", null, annotated))
        .isFalse();
    assertThat(p.mightInstrument("java/util/Fake", APP, annotated)).isFalse();
    assertThat(p.mightInstrument("dev/writerfence/agent/Fake", APP, annotated)).isFalse();
  }

  @Test
  void combinedPrefiltersPassWhatEitherPassesAndKeepTheStartRequest() {
    Prefilter names = Prefilter.named(Set.of("a.A"));
    Prefilter both = names.or(Prefilter.packages(List.of("b."))).or(Prefilter.atStart());

    assertThat(both.mightInstrument("a/A", APP, new byte[0])).isTrue();
    assertThat(both.mightInstrument("b/B", APP, new byte[0])).isTrue();
    assertThat(both.mightInstrument("c/C", APP, new byte[0])).isFalse();
    assertThat(both.needsByteBuddyAtStart()).isTrue();
    assertThat(names.needsByteBuddyAtStart()).isFalse();
    assertThat(Prefilter.none().isEmpty()).isTrue();
    assertThat(Prefilter.none().mightInstrument("a/A", APP, new byte[0])).isFalse();
    assertThat(names.isEmpty()).isFalse();
  }

  private static byte[] bytes(Class<?> type) throws IOException {
    try (InputStream in = APP.getResourceAsStream(type.getName().replace('.', '/') + ".class")) {
      return in.readAllBytes();
    }
  }
}
