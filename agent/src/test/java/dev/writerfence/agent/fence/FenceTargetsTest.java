package dev.writerfence.agent.fence;

import static org.assertj.core.api.Assertions.assertThat;

import com.example.fenced.unwoven.UnwovenWriter;
import java.util.List;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import org.junit.jupiter.api.Test;

/** Which methods a class gets fenced, decided from its description as the agent sees it. */
class FenceTargetsTest {

  /** Overrides the annotated type's method and adds one; carries no annotation of its own. */
  public static class Subclass extends UnwovenWriter {
    @Override
    public long write(String fenceName) {
      return super.write(fenceName);
    }

    public void other() {}
  }

  @Test
  void aSubclassOfAnAnnotatedTypeHasItsPublicMethodsFencedAsJavaAndSpringSeeIt() {
    assertThat(Subclass.class.isAnnotationPresent(dev.writerfence.annotation.WriterFenced.class))
        .as("@WriterFenced is @Inherited")
        .isTrue();
    var fenced =
        new FenceTargets(List.of()).fencedMethods(TypeDescription.ForLoadedType.of(Subclass.class));
    assertThat(fenced.keySet())
        .extracting(MethodDescription::getName)
        .containsExactlyInAnyOrder("write", "other");
  }

  @Test
  void aClassWithoutTheAnnotationAnywhereHasNothingFenced() {
    var fenced =
        new FenceTargets(List.of()).fencedMethods(TypeDescription.ForLoadedType.of(String.class));
    assertThat(fenced).isEmpty();
  }
}
