package dev.writerfence.agent.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.agent.AgentConfigurationException;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MethodPatternTest {

  @Test
  void entryWithFenceAndHolderSplitsAtTheLastSlash() {
    MethodPattern p =
        MethodPattern.parse("com.acme.Outer$Inner#upload*=bucket/a/{0}/uploader", Optional.empty());
    assertThat(p.className()).isEqualTo("com.acme.Outer$Inner");
    assertThat(p.fenceName().toString()).isEqualTo("bucket/a/{0}");
    assertThat(p.holderLabel()).isEqualTo("uploader");
  }

  @Test
  void entryWithoutSlashHasTheDefaultHolderAndWithoutEqualsTheDefaultFence() {
    MethodPattern named = MethodPattern.parse("com.acme.Uploader#upload=corpus", Optional.empty());
    assertThat(named.fenceName().toString()).isEqualTo("corpus");
    assertThat(named.holderLabel()).isNull();
    MethodPattern bare = MethodPattern.parse("com.acme.Uploader#upload", Optional.of("default"));
    assertThat(bare.fenceName().toString()).isEqualTo("default");
  }

  @Test
  void listIsSplitAtCommasAndTrimmed() {
    List<MethodPattern> all =
        MethodPattern.parseAll(" a.B#x=f1 ,\n  c.D#y*=f2/h ", Optional.empty());
    assertThat(all).extracting(MethodPattern::className).containsExactly("a.B", "c.D");
  }

  @Test
  void starMatchesAnyRunOfCharacters() {
    MethodPattern p = MethodPattern.parse("a.B#up*load*=f", Optional.empty());
    assertThat(p.matchesMethod("upload")).isTrue();
    assertThat(p.matchesMethod("upXloadAll")).isTrue();
    assertThat(p.matchesMethod("download")).isFalse();
    assertThat(p.matchesMethod("up")).isFalse();
    assertThat(MethodPattern.parse("a.B#*=f", Optional.empty()).matchesMethod("any")).isTrue();
    assertThat(MethodPattern.parse("a.B#write=f", Optional.empty()).matchesMethod("writeAll"))
        .isFalse();
  }

  @Test
  void badEntriesNameTheEntryAndTheForm() {
    assertRejected("com.acme.Uploader.upload=f", "has no '#'");
    assertRejected("com acme.Uploader#upload=f", "is not a binary class name");
    assertRejected("com.acme.Uploader#up-load=f", "is not a method name");
    assertRejected("com.acme.Uploader#upload=f{x}", "placeholder");
    assertRejected("com.acme.Uploader#upload=f/bad\u0007holder", "holder");
    assertRejected("com.acme.Uploader#upload", "fence-name is not set");
  }

  private static void assertRejected(String entry, String why) {
    assertThatThrownBy(() -> MethodPattern.parse(entry, Optional.empty()))
        .isInstanceOf(AgentConfigurationException.class)
        .hasMessageContaining("fence.methods entry '" + entry + "'")
        .hasMessageContaining(why)
        .hasMessageContaining("CLASS#METHOD[=FENCE[/HOLDER]]");
  }
}
