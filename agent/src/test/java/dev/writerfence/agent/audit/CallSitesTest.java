package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.sites.TwoCallSites;
import java.util.List;
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
}
