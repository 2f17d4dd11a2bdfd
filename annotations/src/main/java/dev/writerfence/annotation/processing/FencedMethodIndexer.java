package dev.writerfence.annotation.processing;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.util.ElementFilter;
import javax.tools.Diagnostic;
import javax.tools.StandardLocation;

/**
 * An annotation processor that writes the index of the {@code @WriterFenced} methods of one
 * compilation to {@value #INDEX}: the methods that must run under a fence, for the start-up check
 * of writer-fence-core ({@code dev.writerfence.internal.weaving.WeavingCheck}) to find them
 * unwoven.
 *
 * <p>It is not registered as a service, so it never runs by surprise in a build that merely has
 * this jar on its class path: name it, for example with the maven-compiler-plugin's {@code
 * <annotationProcessorPaths>} (this artifact) and {@code <annotationProcessors>} (this class), or
 * {@code javac -processor dev.writerfence.annotation.processing.FencedMethodIndexer}.
 *
 * <p>Each line of the index is one method: the binary name of its class, {@code #}, its name, and
 * its erased parameter types in parentheses, such as {@code com.acme.Upload#put(java.lang.String)}.
 * A method annotated itself is listed; on an annotated type, its public methods are (what the
 * weaving modes fence). Lines are sorted; the file is written once, when processing is over.
 * Sources in other languages (Kotlin without kapt) are not seen.
 */
@SupportedAnnotationTypes(FencedMethodIndexer.ANNOTATION)
public final class FencedMethodIndexer extends AbstractProcessor {
  /** The class-path resource of the index, one per compiled jar or class directory. */
  public static final String INDEX = "META-INF/writer-fence/fenced-methods";

  /** The annotation's name: named, not referenced, so that the processor loads on its own. */
  static final String ANNOTATION = "dev.writerfence.annotation.WriterFenced";

  private final Set<String> lines = new TreeSet<>();

  /** Made by javac, through {@code -processor}. */
  public FencedMethodIndexer() {}

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    for (TypeElement annotation : annotations) {
      for (Element e : round.getElementsAnnotatedWith(annotation)) {
        if (e instanceof ExecutableElement method && e.getKind() == ElementKind.METHOD) {
          lines.add(line(method));
        } else if (e instanceof TypeElement type) {
          for (ExecutableElement m : ElementFilter.methodsIn(type.getEnclosedElements())) {
            if (m.getModifiers().contains(Modifier.PUBLIC)) {
              lines.add(line(m));
            }
          }
        }
      }
    }
    if (round.processingOver() && !lines.isEmpty()) {
      write();
    }
    return false; // other processors may read @WriterFenced too
  }

  private String line(ExecutableElement method) {
    TypeElement owner = (TypeElement) method.getEnclosingElement();
    String params =
        method.getParameters().stream()
            .map(VariableElement::asType)
            .map(t -> processingEnv.getTypeUtils().erasure(t).toString())
            .collect(Collectors.joining(","));
    return processingEnv.getElementUtils().getBinaryName(owner)
        + "#"
        + method.getSimpleName()
        + "("
        + params
        + ")";
  }

  private void write() {
    try (Writer out =
        new OutputStreamWriter(
            processingEnv
                .getFiler()
                .createResource(StandardLocation.CLASS_OUTPUT, "", INDEX)
                .openOutputStream(),
            StandardCharsets.UTF_8)) {
      for (String line : lines) {
        out.write(line);
        out.write('\n');
      }
    } catch (IOException e) {
      processingEnv
          .getMessager()
          .printMessage(Diagnostic.Kind.ERROR, "writer-fence: cannot write " + INDEX + ": " + e);
    }
  }
}
