package dev.writerfence.cli.audit;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The writer map ({@link WriterMap}) drawn as a picture: Mermaid flowchart text, or a
 * self-contained HTML page holding that text and the map as a plain table.
 *
 * <p>The flowchart ({@code flowchart LR}) has one subgraph per bucket. In it, the bucket is a
 * cylinder, each fence name its writers hold a hexagon, and each writer a box naming its holder
 * label, call site, client, operations and write count. A fenced writer points to its fence name
 * ({@code holds}), which points to the bucket ({@code guards}); an unfenced writer points straight
 * to the bucket with a dotted {@code no fence} edge. Writers and fence names are coloured by
 * status: {@code fenced} green, {@code inconsistent} orange, {@code unfenced} red; a fence name is
 * {@code inconsistent} when its bucket's writers hold more than one name. Node ids are generated
 * ({@code b0}, {@code f0_1}, {@code w0_2}), so labels never reach Mermaid's syntax: every character
 * of a label outside letters, digits, space and {@code .,:_/@()-+=} is written as Mermaid's entity
 * code {@code #NNN;} (its code point).
 *
 * <p>The HTML page needs no fetch to be read: the table is plain HTML, and the flowchart text sits
 * in a {@code <pre class="mermaid">} that shows as text, drawn as a diagram by Mermaid's script
 * when the browser can load it.
 */
public final class WriterMapPicture {
  /** The picture formats, as {@code audit --format} names them ({@code text} is the table). */
  public static final List<String> FORMATS = List.of("mermaid", "html");

  /** Where the HTML page loads Mermaid from to draw the diagram; the page reads without it. */
  static final String MERMAID_SCRIPT =
      "https://cdn.jsdelivr.net/npm/mermaid@11/dist/mermaid.esm.min.mjs";

  private static final String INDENT = "  ";

  private final WriterMap map;

  /**
   * @param map the map to draw
   */
  public WriterMapPicture(WriterMap map) {
    this.map = map;
  }

  /**
   * @param format {@code mermaid} or {@code html}
   * @param out where to write the picture
   * @throws IllegalArgumentException when the format is neither, naming it and the allowed ones
   */
  public void write(String format, PrintWriter out) {
    switch (format) {
      case "mermaid" -> out.print(mermaid());
      case "html" -> out.print(html());
      default ->
          throw new IllegalArgumentException(
              "map format '" + format + "' is not allowed: one of " + String.join(", ", FORMATS));
    }
    out.flush();
  }

  /**
   * @return the map as Mermaid flowchart text, lines ending in {@code \n}; a map without writers is
   *     one node saying so
   */
  public String mermaid() {
    StringBuilder m = new StringBuilder("flowchart LR\n");
    for (WriterMap.Status s : WriterMap.Status.values()) {
      m.append(INDENT).append("classDef ").append(s.label()).append(' ');
      m.append(style(s)).append('\n');
    }
    m.append(INDENT).append("classDef bucket fill:#e7f0ff,stroke:#1c4e80,color:#0b2545\n");
    if (map.writers().isEmpty()) {
      m.append(INDENT).append("none[\"no write seen\"]\n");
      return m.toString();
    }
    List<String> classes = new ArrayList<>();
    int b = 0;
    for (Map.Entry<String, List<WriterMap.Writer>> bucket : byBucket().entrySet()) {
      String bucketId = "b" + b;
      m.append(INDENT).append("subgraph s").append(b).append("[\"bucket ");
      m.append(label(bucket.getKey())).append("\"]\n");
      m.append(INDENT.repeat(2)).append(bucketId).append("[(\"");
      m.append(label(bucket.getKey())).append("\")]\n");
      classes.add(bucketId + " bucket");
      Map<String, String> fences = new LinkedHashMap<>();
      List<WriterMap.Writer> writers = bucket.getValue();
      boolean inconsistent =
          writers.stream().anyMatch(w -> w.status() == WriterMap.Status.INCONSISTENT);
      for (WriterMap.Writer w : writers) {
        if (w.fenceName() != null && !fences.containsKey(w.fenceName())) {
          String fenceId = "f" + b + "_" + fences.size();
          fences.put(w.fenceName(), fenceId);
          m.append(INDENT.repeat(2)).append(fenceId).append("{{\"fence ");
          m.append(label(w.fenceName())).append("\"}}\n");
          m.append(INDENT.repeat(2)).append(fenceId).append(" -->|guards| ");
          m.append(bucketId).append('\n');
          classes.add(
              fenceId
                  + " "
                  + (inconsistent ? WriterMap.Status.INCONSISTENT : WriterMap.Status.FENCED)
                      .label());
        }
      }
      for (int i = 0; i < writers.size(); i++) {
        WriterMap.Writer w = writers.get(i);
        String writerId = "w" + b + "_" + i;
        m.append(INDENT.repeat(2)).append(writerId).append("[\"").append(writerLabel(w));
        m.append("\"]\n");
        m.append(INDENT.repeat(2)).append(writerId);
        if (w.fenceName() == null) {
          m.append(" -.->|no fence| ").append(bucketId).append('\n');
        } else {
          m.append(" -->|holds| ").append(fences.get(w.fenceName())).append('\n');
        }
        classes.add(writerId + " " + w.status().label());
      }
      m.append(INDENT).append("end\n");
      b++;
    }
    classes.forEach(c -> m.append(INDENT).append("class ").append(c).append('\n'));
    return m.toString();
  }

  /**
   * @return a self-contained HTML page: the flowchart text in a {@code <pre class="mermaid">}, then
   *     one table row per writer, each row's {@code class} its status
   */
  public String html() {
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.append("<title>writer-fence writer map</title>\n<style>\n");
    h.append("body { font-family: sans-serif; margin: 1.5em; }\n");
    h.append("table { border-collapse: collapse; }\n");
    h.append("th, td { border: 1px solid #999; padding: 0.3em 0.6em; text-align: left; }\n");
    for (WriterMap.Status s : WriterMap.Status.values()) {
      h.append("tr.").append(s.label()).append(" td { background: ").append(fill(s));
      h.append("; }\n");
    }
    h.append("pre.mermaid { background: #fafafa; }\n</style>\n</head>\n<body>\n");
    h.append("<h1>Writer map</h1>\n");
    h.append("<p>Every writer the audit saw, per bucket: green holds the bucket's fence, orange")
        .append(" holds one of several fence names on one bucket (inconsistent), red holds none")
        .append(" (unfenced). The diagram is drawn when the browser can load Mermaid; the table")
        .append(" below says the same without it.</p>\n");
    h.append("<pre class=\"mermaid\">\n").append(escape(mermaid())).append("</pre>\n");
    h.append("<table class=\"writer-map\">\n<thead><tr>");
    for (String c : COLUMNS) {
      h.append("<th>").append(escape(c)).append("</th>");
    }
    h.append("</tr></thead>\n<tbody>\n");
    for (WriterMap.Writer w : map.writers()) {
      h.append("<tr class=\"").append(w.status().label()).append("\">");
      for (String cell :
          Stream.concat(Stream.of(w.bucket()), WriterMap.cells(w).stream()).toList()) {
        h.append("<td>").append(escape(cell)).append("</td>");
      }
      h.append("</tr>\n");
    }
    h.append("</tbody>\n</table>\n");
    h.append("<script type=\"module\">\nimport mermaid from '").append(MERMAID_SCRIPT);
    h.append("';\nmermaid.initialize({ startOnLoad: true, securityLevel: 'strict' });\n");
    h.append("</script>\n</body>\n</html>\n");
    return h.toString();
  }

  /** The table's columns: the bucket, then those {@code audit --map} prints. */
  static final List<String> COLUMNS =
      Stream.concat(Stream.of("bucket"), WriterMap.COLUMNS.stream()).toList();

  private Map<String, List<WriterMap.Writer>> byBucket() {
    Map<String, List<WriterMap.Writer>> byBucket = new LinkedHashMap<>();
    for (WriterMap.Writer w : map.writers()) {
      byBucket.computeIfAbsent(w.bucket(), k -> new ArrayList<>()).add(w);
    }
    return byBucket;
  }

  /** Holder label (or "no holder"), call site, then client, operations and count: one per line. */
  private static String writerLabel(WriterMap.Writer w) {
    List<String> lines = new ArrayList<>();
    lines.add(w.holderLabel() == null ? "no holder" : w.holderLabel());
    lines.add(w.callSite());
    if (w.fencedBy() != null) {
      lines.add("fenced by " + w.fencedBy());
    }
    lines.add(w.client() + " " + String.join(",", w.operations()) + " x" + w.count());
    return String.join("<br/>", lines.stream().map(WriterMapPicture::label).toList());
  }

  /**
   * @param text any text
   * @return the text safe inside a quoted Mermaid label: characters other than letters, digits,
   *     space and {@code .,:_/@()-+=} as entity codes {@code #NNN;}
   */
  static String label(String text) {
    StringBuilder b = new StringBuilder(text.length());
    text.codePoints()
        .forEach(
            c -> {
              if (c < 128 && (Character.isLetterOrDigit(c) || " .,:_/@()-+=".indexOf(c) >= 0)) {
                b.appendCodePoint(c);
              } else {
                b.append('#').append(c).append(';');
              }
            });
    return b.toString();
  }

  private static String escape(String text) {
    StringBuilder b = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  private static String style(WriterMap.Status s) {
    String stroke =
        switch (s) {
          case FENCED -> "#2d6a4f";
          case UNFENCED -> "#c1121f";
          case INCONSISTENT -> "#d9480f";
        };
    return String.format(Locale.ROOT, "fill:%s,stroke:%s,color:#000", fill(s), stroke);
  }

  private static String fill(WriterMap.Status s) {
    return switch (s) {
      case FENCED -> "#d8f3dc";
      case UNFENCED -> "#ffd6d6";
      case INCONSISTENT -> "#ffe8cc";
    };
  }
}
