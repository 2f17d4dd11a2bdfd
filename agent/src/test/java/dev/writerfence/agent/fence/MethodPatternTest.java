package dev.writerfence.agent.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.agent.AgentConfigurationException;
import dev.writerfence.annotation.OnBusy;
import dev.writerfence.retry.BusyRetryPolicy;
import java.time.Duration;
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
    assertThat(p.holderLabel()).isEqualTo("uploader@" + HolderLabel.instance());
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
  void optionsAfterSemicolonsSetPriorityOnBusyAndMaxWait() {
    MethodPattern p =
        MethodPattern.parse(
            "com.acme.Nightly#walk=corpus/nightly; priority=-10 ;on-busy=SKIP;retry.max-wait=30s"
                + ";interrupt-on-loss=TRUE",
            Optional.empty());
    assertThat(p.fenceName().toString()).isEqualTo("corpus");
    assertThat(p.holderLabel()).isEqualTo("nightly@" + HolderLabel.instance());
    assertThat(p.priority()).isEqualTo(-10);
    assertThat(p.onBusy()).isEqualTo(OnBusy.SKIP);
    assertThat(p.maxWait()).isEqualTo(Duration.ofSeconds(30));
    assertThat(p.interruptOnLoss()).isTrue();

    MethodPattern bare = MethodPattern.parse("a.B#x;on-busy=throw", Optional.of("corpus"));
    assertThat(bare.fenceName().toString()).isEqualTo("corpus");
    assertThat(bare.onBusy()).isEqualTo(OnBusy.THROW);
    assertThat(bare.priority()).isNull();
    assertThat(bare.maxWait()).isNull();
    assertThat(bare.interruptOnLoss()).isFalse();
    assertThat(MethodPattern.parse("a.B#x=f;interrupt-on-loss=false", Optional.empty()))
        .extracting(MethodPattern::interruptOnLoss)
        .isEqualTo(false);

    MethodPattern none = MethodPattern.parse("a.B#x=f", Optional.empty());
    assertThat(none.onBusy()).isEqualTo(OnBusy.THROW);
    assertThat(none.priority()).isNull();
  }

  @Test
  void badOptionsNameTheEntryTheOptionAndTheRule() {
    assertRejected("a.B#x=f;priority=101", "priority 101 is not allowed: -100 to 100");
    assertRejected("a.B#x=f;priority=high", "is not a whole number");
    assertRejected("a.B#x=f;on-busy=wait", "on-busy 'wait' is not allowed: throw or skip");
    assertRejected("a.B#x=f;retry.max-wait=0ms", "at least 1 ms");
    assertRejected("a.B#x=f;retry.max-wait=soon", "is not a duration");
    assertRejected("a.B#x=f;max-wait=2s", "not one of priority=N, on-busy=throw|skip");
    assertRejected(
        "a.B#x=f;interrupt-on-loss=yes", "interrupt-on-loss 'yes' is not allowed: true or false");
    assertRejected("a.B#x=f;priority=1;priority=2", "option 'priority' is given twice");
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
        .hasMessageContaining("CLASS#METHOD[=FENCE[/HOLDER]][;priority=N][;on-busy=throw|skip]");
  }

  @Test
  void advisoryKeyIsATemplateFedByTheFenceNamesArguments() {
    MethodPattern p =
        MethodPattern.parse(
            "com.acme.Jobs#integrate=integrate:{0}:{1};on-busy=skip"
                + ";advisory-key=vibey.integrate:{0}:{1}",
            Optional.empty());
    assertThat(p.advisoryKey().resolve(new Object[] {"proj", 42}))
        .isEqualTo("vibey.integrate:proj:42");
    assertThat(MethodPattern.parse("a.B#x=f", Optional.empty()).advisoryKey()).isNull();
    // What the agent's advice asks of the fence for one call: the fence name and the key text.
    FenceRequest request =
        FenceSpec.configured(
                "Jobs.integrate", "Jobs.integrate()", p, "void", false, "void"::equals, null)
            .request(new Object[] {"proj", 42}, BusyRetryPolicy.defaults());
    assertThat(request.fenceName()).isEqualTo("integrate:proj:42");
    assertThat(request.advisoryKey()).contains("vibey.integrate:proj:42");

    assertThatThrownBy(
            () -> MethodPattern.parse("a.B#x=f:{0};advisory-key=k:{0}:{1}", Optional.empty()))
        .isInstanceOf(AgentConfigurationException.class)
        .hasMessageContaining(
            "fence.methods entry 'a.B#x=f:{0};advisory-key=k:{0}:{1}' is not allowed:"
                + " writer-fence: advisory key template 'k:{0}:{1}' is not allowed: it uses"
                + " argument {1}, which the fence name 'f:{0}' does not use");
    assertThatThrownBy(() -> MethodPattern.parse("a.B#x=f;advisory-key=", Optional.empty()))
        .hasMessageContaining("advisory key text '' is not allowed");
  }
}
