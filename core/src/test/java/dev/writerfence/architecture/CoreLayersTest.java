package dev.writerfence.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Holds every dependency between core's main classes to the layers docs/architecture.md draws: each
 * layer may use only the layers below it, and no two parts of core depend on each other in a cycle.
 * A class that needs a layer above it is a design question, not an exemption: answer it in the code
 * (move the type down, or hand the value in) and in the architecture page.
 *
 * <p>The layers, top to bottom (the names in the rules and in the failure messages):
 *
 * <ol>
 *   <li>{@code Configuration}: {@code dev.writerfence.config}, which binds settings and builds
 *       fences.
 *   <li>{@code Settings}: {@code dev.writerfence.internal.config}, the catalog of every setting.
 *   <li>{@code Fence}: {@code WriterFence} and the package-private lifecycle beside it in {@code
 *       dev.writerfence} (the flow of a fenced call, the held lease, renewal, turns, shutdown).
 *   <li>{@code Weaving}: {@code dev.writerfence.internal.weaving}, the entry of the weaving modes
 *       and the annotation read into requests.
 *   <li>{@code Holds}: {@code dev.writerfence.context}, the thread's holds and the executors that
 *       carry them.
 *   <li>{@code Stores}: {@code dev.writerfence.store..}, the backends that ship with core.
 *   <li>{@code Schema}: {@code dev.writerfence.schema}, the SQL contract installed and checked.
 *   <li>{@code Spi}: {@code dev.writerfence.spi}, what a backend implements.
 *   <li>{@code Api}: the public values of {@code dev.writerfence} (requests, leases, listener,
 *       exceptions, statuses) and {@code dev.writerfence.retry}.
 *   <li>{@code Base}: {@code dev.writerfence.internal}, the input rules everything checks with, and
 *       {@code dev.writerfence.internal.audit}, the audit report's one shape (the agent writes it,
 *       the CLI reads it); neither imports anything else of core.
 * </ol>
 */
class CoreLayersTest {
  private static final String ROOT = "dev.writerfence";

  private static JavaClasses core;

  @BeforeAll
  static void importCore() {
    // Core's own compiled classes only: not its tests, nor the test-support sources compiled with
    // them, nor the bootstrap and annotations modules on the class path.
    Path classes = Path.of("target", "classes");
    if (!Files.isDirectory(classes.resolve("dev/writerfence"))) {
      throw new IllegalStateException(
          "no compiled classes under " + classes.toAbsolutePath() + ": run through Maven");
    }
    core = new ClassFileImporter().importPath(classes);
  }

  @Test
  void everyImportPointsDownTheLayers() {
    layers().check(core);
  }

  @Test
  void noPartOfCoreDependsOnAnotherInACycle() {
    slices()
        .assignedFrom(new PartOfCore())
        .namingSlices("$1")
        .should()
        .beFreeOfCycles()
        .check(core);
  }

  @Test
  void everyCoreClassLiesInALayer() {
    // A new package must be given a layer (here and in docs/architecture.md) before it can land.
    classes()
        .should(
            new ArchCondition<JavaClass>("lie in one of core's layers") {
              @Override
              public void check(JavaClass c, ConditionEvents events) {
                if (layerOf(c) == null) {
                  events.add(
                      SimpleConditionEvent.violated(c, c.getName() + " lies in no layer of core"));
                }
              }
            })
        .check(core);
  }

  private static LayeredArchitecture layers() {
    LayeredArchitecture l = layeredArchitecture().consideringOnlyDependenciesInLayers();
    for (Layer layer : Layer.values()) {
      l = l.layer(layer.name()).definedBy(layer.members());
    }
    Layer[] all = Layer.values();
    for (int i = 0; i < all.length; i++) {
      if (i == 0) {
        l = l.whereLayer(all[i].name()).mayNotBeAccessedByAnyLayer();
      } else {
        String[] above = new String[i];
        for (int j = 0; j < i; j++) {
          above[j] = all[j].name();
        }
        l = l.whereLayer(all[i].name()).mayOnlyBeAccessedByLayers(above);
      }
    }
    return l;
  }

  /** Core's layers, top first; a class belongs to the first whose rule it meets. */
  enum Layer {
    Configuration,
    Settings,
    Fence,
    Weaving,
    Holds,
    Stores,
    Schema,
    Spi,
    Api,
    Base;

    DescribedPredicate<JavaClass> members() {
      return DescribedPredicate.describe(name(), c -> layerOf(c) == this);
    }
  }

  static Layer layerOf(JavaClass c) {
    String pkg = c.getPackageName();
    if (pkg.equals(ROOT)) {
      return isFence(c) ? Layer.Fence : Layer.Api;
    }
    String sub = pkg.startsWith(ROOT + ".") ? pkg.substring(ROOT.length() + 1) : null;
    if (sub == null) {
      return null;
    }
    if (sub.equals("config")) {
      return Layer.Configuration;
    }
    if (sub.equals("internal.config")) {
      return Layer.Settings;
    }
    if (sub.equals("internal.weaving")) {
      return Layer.Weaving;
    }
    if (sub.equals("context")) {
      return Layer.Holds;
    }
    if (sub.equals("store") || sub.startsWith("store.")) {
      return Layer.Stores;
    }
    if (sub.equals("schema")) {
      return Layer.Schema;
    }
    if (sub.equals("spi")) {
      return Layer.Spi;
    }
    if (sub.equals("retry")) {
      return Layer.Api;
    }
    if (sub.equals("internal") || sub.equals("internal.audit")) {
      return Layer.Base;
    }
    return null;
  }

  /**
   * The root package holds two layers: {@code WriterFence} (with its nested classes) and the
   * package-private lifecycle behind it, above everything they use; and the public values every
   * layer may name, below them.
   */
  private static boolean isFence(JavaClass c) {
    JavaClass top = c;
    while (top.getEnclosingClass().isPresent()) {
      top = top.getEnclosingClass().get();
    }
    return top.getSimpleName().equals("WriterFence")
        || !top.getModifiers().contains(JavaModifier.PUBLIC);
  }

  /** One slice per package, the root package cut in its two layers. */
  private static final class PartOfCore implements SliceAssignment {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass c) {
      Layer layer = layerOf(c);
      if (layer == null) {
        return SliceIdentifier.ignore();
      }
      String pkg = c.getPackageName();
      return SliceIdentifier.of(pkg.equals(ROOT) ? ROOT + " (" + layer + ")" : pkg);
    }

    @Override
    public String getDescription() {
      return "core's packages (the root package as its two layers)";
    }
  }
}
