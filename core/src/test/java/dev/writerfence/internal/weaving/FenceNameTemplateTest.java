package dev.writerfence.internal.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.internal.weaving.FencedMethods.FenceNameTemplate;
import org.junit.jupiter.api.Test;

/** A template knows the names it makes, for the bounded metric tags that name it. */
class FenceNameTemplateTest {
  @Test
  void aTemplateMatchesTheNamesItResolvesToAndNoOthers() {
    FenceNameTemplate t = FenceNameTemplate.parse("corpus:{0}:part-{1}");

    assertThat(t.matches(t.resolve(new Object[] {"b-17", 3}))).isTrue();
    assertThat(t.matches("corpus:x:part-"))
        .as("a placeholder stands for one character or more")
        .isFalse();
    assertThat(t.matches("corpus:x:y")).isFalse();
    assertThat(t.matches("other:x:part-1")).isFalse();
    assertThat(t.matches(null)).isFalse();
    assertThat(t.literalLength()).isEqualTo("corpus:".length() + ":part-".length());
  }

  @Test
  void literalsAreMatchedAsTextAndAConstantOnlyByItself() {
    FenceNameTemplate dotted = FenceNameTemplate.parse("a.b{{:{0}");
    FenceNameTemplate constant = FenceNameTemplate.parse("nightly");

    assertThat(dotted.matches("a.b{:7")).isTrue();
    assertThat(dotted.matches("aXb{:7")).as("a dot is not a wildcard").isFalse();
    assertThat(constant.matches("nightly")).isTrue();
    assertThat(constant.matches("nightly-2")).isFalse();
  }
}
