package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.internal.FenceArguments;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** The holder label rule: {@code host:pid} by default, {@code label@host:pid} for a given label. */
class HolderLabelTest extends FenceTestSupport {
  private static final String PID = String.valueOf(ProcessHandle.current().pid());

  @Test
  void theInstancePartIsThisHostAndThisPid() throws Exception {
    String host = InetAddress.getLocalHost().getHostName();

    assertThat(HolderLabel.instance()).isEqualTo(host + ":" + PID).doesNotContain("@");
    assertThat(HolderLabel.host()).isEqualTo(host);
    assertThat(HolderLabel.instance()).isSameAs(HolderLabel.instance()); // computed once
  }

  @Test
  void aGivenLabelShowsTheInstanceAfterAnAt() {
    assertThat(HolderLabel.of("upload")).isEqualTo("upload@" + HolderLabel.instance());
    assertThat(HolderLabel.of("up load")).isEqualTo("up load@" + HolderLabel.instance());
  }

  @Test
  void noLabelStaysNoLabelAndAnEmptyOneIsTheInstanceAlone() {
    assertThat(HolderLabel.of(null)).isNull();
    assertThat(HolderLabel.of("")).isEqualTo(HolderLabel.instance());
  }

  @Test
  void aLabelWithAnAtOrTheInstanceItselfIsKeptSoDecoratingTwiceChangesNothing() {
    assertThat(HolderLabel.of("upload@web-3:17")).isEqualTo("upload@web-3:17");
    assertThat(HolderLabel.of("@")).isEqualTo("@");
    assertThat(HolderLabel.of(HolderLabel.instance())).isEqualTo(HolderLabel.instance());
    String once = HolderLabel.of("upload");
    assertThat(HolderLabel.of(once)).isEqualTo(once);
  }

  @Test
  void aLongLabelIsCutAndTheInstancePartNeverIs() {
    String instance = "web-3.example.org:4711";
    String label = HolderLabel.decorate("x".repeat(200), instance);

    assertThat(label)
        .hasSize(FenceArguments.MAX_NAME_LENGTH)
        .isEqualTo("x".repeat(200 - 1 - instance.length()) + "@" + instance);
    assertThat(FenceArguments.holderLabel(label)).isEqualTo(label);
    // Exactly at the limit: nothing is cut.
    String fits = "y".repeat(200 - 1 - instance.length());
    assertThat(HolderLabel.decorate(fits, instance)).isEqualTo(fits + "@" + instance);
    // This instance's own part, with the longest label allowed.
    assertThat(HolderLabel.of("z".repeat(200)))
        .hasSize(FenceArguments.MAX_NAME_LENGTH)
        .endsWith("@" + HolderLabel.instance());
  }

  @Test
  void aCutNeverSplitsACharacterOutsideTheBmp() {
    String instance = "h:1";
    String emoji = "\uD83D\uDE00"; // one code point, two chars
    String label = HolderLabel.decorate(emoji.repeat(200), instance);

    assertThat(label.codePointCount(0, label.length())).isEqualTo(200);
    assertThat(label).isEqualTo(emoji.repeat(196) + "@" + instance);
    assertThat(FenceArguments.holderLabel(label)).isEqualTo(label);
  }

  @Test
  void aBadLabelIsStillRefusedNamingItAndTheRule() {
    assertThatThrownBy(() -> HolderLabel.of("bad\u0000label"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holder label 'bad\\u0000label'")
        .hasMessageContaining("up to 200 characters, no control or format characters");
    assertThatThrownBy(() -> HolderLabel.of("x".repeat(201)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("(201 characters)")
        .hasMessageContaining("up to 200 characters");
    assertThatThrownBy(() -> FenceRequest.builder("corpus").holderLabel("a\u202Eb").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holder label 'a\\u202Eb'");
  }

  @Test
  void aHostNameThatBreaksTheRuleBecomesUnknownHostAndALongOneIsCut() {
    assertThat(HolderLabel.host(null)).isEqualTo(HolderLabel.UNKNOWN_HOST);
    assertThat(HolderLabel.host(" ")).isEqualTo(HolderLabel.UNKNOWN_HOST);
    assertThat(HolderLabel.host("a@b")).isEqualTo(HolderLabel.UNKNOWN_HOST);
    assertThat(HolderLabel.host("web\n3")).isEqualTo(HolderLabel.UNKNOWN_HOST);
    assertThat(HolderLabel.host(" web-3 ")).isEqualTo("web-3");
    assertThat(HolderLabel.host("h".repeat(300)))
        .isEqualTo("h".repeat(HolderLabel.MAX_HOST_LENGTH));
  }

  @Test
  void rowsShowTheInstanceByDefaultAndAfterAGivenLabel() {
    try (WriterFence plain = fence();
        WriterFence named = fence(DB.dataSource()).defaultHolderLabel("upload-service").build()) {
      FenceLease byDefault = plain.acquire(FenceRequest.of(name));
      assertThat(plain.status(name).orElseThrow().holderLabel())
          .isEqualTo(byDefault.holderLabel())
          .isEqualTo(HolderLabel.instance());
      plain.release(byDefault);

      FenceLease given = plain.acquire(FenceRequest.builder(name).holderLabel("upload").build());
      assertThat(plain.status(name).orElseThrow().holderLabel())
          .isEqualTo(given.holderLabel())
          .isEqualTo("upload@" + HolderLabel.instance());
      plain.release(given);

      FenceLease fenceDefault = named.acquire(FenceRequest.of(name));
      assertThat(named.status(name).orElseThrow().holderLabel())
          .isEqualTo("upload-service@" + HolderLabel.instance());
      named.release(fenceDefault);
    }
  }

  @Test
  void theGivenPartIsTheLabelWithoutItsInstancePart() {
    assertThat(HolderLabel.given(HolderLabel.of("upload"))).isEqualTo("upload");
    assertThat(HolderLabel.given("upload@web-3:4711")).isEqualTo("upload");
    assertThat(HolderLabel.given(HolderLabel.instance())).isNull();
    assertThat(HolderLabel.given("@web-3:4711")).isNull();
    assertThat(HolderLabel.given(null)).isNull();
    assertThat(HolderLabel.given("pid-42")).isEqualTo("pid-42");
  }
}
