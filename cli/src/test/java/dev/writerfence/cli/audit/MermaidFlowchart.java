package dev.writerfence.cli.audit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The subset of Mermaid's flowchart grammar the writer map is drawn with, read line by line: a
 * {@code flowchart LR} header, {@code classDef}, {@code subgraph id["label"]} ... {@code end},
 * nodes with a quoted label in a box {@code id["…"]}, cylinder {@code id[("…")]} or hexagon {@code
 * id{{"…"}}}, edges {@code a -->|label| b} and {@code a -.->|label| b}, and {@code class id name}.
 * Any other line, a label with a character Mermaid would parse ({@code " [ ] { } | < > # ;} outside
 * an entity code or a {@code <br/>}), an edge or class naming an unknown node, or an unclosed
 * subgraph is an {@link AssertionError} naming the line. The demo module's tests read its map with
 * it too.
 *
 * @param nodes every node: id to its label (entity codes and line breaks left as written)
 * @param shapes every node: id to {@code box}, {@code cylinder} or {@code hexagon}
 * @param edges every edge as {@code from -->|label| to} or {@code from -.->|label| to}
 * @param classes every node given a class: id to the class
 * @param subgraphs every subgraph: id to its label
 */
public record MermaidFlowchart(
    Map<String, String> nodes,
    Map<String, String> shapes,
    List<String> edges,
    Map<String, String> classes,
    Map<String, String> subgraphs) {
  private static final String ID = "([A-Za-z][A-Za-z0-9_]*)";
  private static final String LABEL = "\"((?:[^\"\\[\\]{}|<>#;]|#[0-9]+;|#[a-z]+;|<br/>)*)\"";
  private static final Pattern CLASS_DEF =
      Pattern.compile("classDef " + ID + " [a-z-]+:[#A-Za-z0-9]+(,[a-z-]+:[#A-Za-z0-9]+)*");
  private static final Pattern SUBGRAPH = Pattern.compile("subgraph " + ID + "\\[" + LABEL + "]");
  private static final Pattern BOX = Pattern.compile(ID + "\\[" + LABEL + "]");
  private static final Pattern CYLINDER = Pattern.compile(ID + "\\[\\(" + LABEL + "\\)]");
  private static final Pattern HEXAGON = Pattern.compile(ID + "\\{\\{" + LABEL + "}}");
  private static final Pattern EDGE = Pattern.compile(ID + " (-->|-\\.->)\\|([A-Za-z ]+)\\| " + ID);
  private static final Pattern CLASS = Pattern.compile("class " + ID + " " + ID);

  /**
   * @param text Mermaid text as the writer map is drawn
   * @return what it draws
   * @throws AssertionError at the first line outside the grammar
   */
  public static MermaidFlowchart parse(String text) {
    List<String> lines = text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    if (lines.isEmpty() || !lines.get(0).equals("flowchart LR")) {
      throw new AssertionError("not a flowchart LR: " + text);
    }
    Map<String, String> nodes = new LinkedHashMap<>();
    Map<String, String> shapes = new LinkedHashMap<>();
    List<String> edges = new ArrayList<>();
    Map<String, String> classes = new LinkedHashMap<>();
    Map<String, String> subgraphs = new LinkedHashMap<>();
    List<String> classDefs = new ArrayList<>();
    boolean open = false;
    for (String line : lines.subList(1, lines.size())) {
      Matcher m;
      if ((m = CLASS_DEF.matcher(line)).matches()) {
        classDefs.add(m.group(1));
      } else if ((m = SUBGRAPH.matcher(line)).matches()) {
        check(!open, "a subgraph inside a subgraph", line);
        open = true;
        subgraphs.put(m.group(1), m.group(2));
      } else if (line.equals("end")) {
        check(open, "end without a subgraph", line);
        open = false;
      } else if ((m = EDGE.matcher(line)).matches()) {
        check(nodes.containsKey(m.group(1)), "an edge from an unknown node", line);
        check(nodes.containsKey(m.group(4)), "an edge to an unknown node", line);
        edges.add(m.group(1) + " " + m.group(2) + "|" + m.group(3) + "| " + m.group(4));
      } else if ((m = CLASS.matcher(line)).matches()) {
        check(nodes.containsKey(m.group(1)), "a class of an unknown node", line);
        check(classDefs.contains(m.group(2)), "an undefined class", line);
        classes.put(m.group(1), m.group(2));
      } else if ((m = CYLINDER.matcher(line)).matches()) {
        node(nodes, shapes, m, "cylinder", line);
      } else if ((m = HEXAGON.matcher(line)).matches()) {
        node(nodes, shapes, m, "hexagon", line);
      } else if ((m = BOX.matcher(line)).matches()) {
        node(nodes, shapes, m, "box", line);
      } else {
        throw new AssertionError("not in the writer map's Mermaid grammar: " + line);
      }
    }
    check(!open, "a subgraph never ended", text);
    return new MermaidFlowchart(nodes, shapes, edges, classes, subgraphs);
  }

  /**
   * @param label a label as written, entity codes and {@code <br/>} in it
   * @return the text Mermaid shows: codes decoded, line breaks as {@code \n}
   */
  public static String text(String label) {
    Matcher m = Pattern.compile("#([0-9]+);").matcher(label.replace("<br/>", "\n"));
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(
          b, Matcher.quoteReplacement(Character.toString(Integer.parseInt(m.group(1)))));
    }
    m.appendTail(b);
    return b.toString();
  }

  /**
   * @param id a node's id
   * @return the text its label shows
   */
  public String textOf(String id) {
    return text(nodes.get(id));
  }

  private static void node(
      Map<String, String> nodes, Map<String, String> shapes, Matcher m, String shape, String line) {
    check(!nodes.containsKey(m.group(1)), "a node defined twice", line);
    nodes.put(m.group(1), m.group(2));
    shapes.put(m.group(1), shape);
  }

  private static void check(boolean ok, String what, String line) {
    if (!ok) {
      throw new AssertionError(what + ": " + line);
    }
  }
}
