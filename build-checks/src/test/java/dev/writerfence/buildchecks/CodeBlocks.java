package dev.writerfence.buildchecks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fenced code blocks of a Markdown text: {@code ```xml} up to the closing {@code ```}. A block
 * indented under a list item keeps its text without that indentation. As in CommonMark, a line of
 * backticks followed by more backticks is inline code, not a fence.
 */
final class CodeBlocks {
  private static final Pattern OPENING = Pattern.compile("^( *)(`{3,})\\s*([\\w+-]*)([^`]*)$");

  private CodeBlocks() {}

  /**
   * One code block.
   *
   * @param language the word after the opening fence, lower case; empty when none
   * @param words the words after the language on the opening line, lower case, such as {@code
   *     complete} in {@code ```java complete}; empty when none
   * @param line the line number (from 1) of the block's first line of code
   * @param code the block's text, lines joined by {@code \n}, without the fences
   */
  record Block(String language, List<String> words, int line, String code) {}

  /**
   * @param text a Markdown text
   * @return its fenced code blocks in order; a block left open runs to the end of the text
   */
  static List<Block> in(String text) {
    List<Block> blocks = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    int i = 0;
    while (i < lines.length) {
      Matcher open = OPENING.matcher(lines[i]);
      if (!open.matches()) {
        i++;
        continue;
      }
      int indent = open.group(1).length();
      String fence = open.group(2);
      String language = open.group(3).toLowerCase(Locale.ROOT);
      String rest = open.group(4).strip().toLowerCase(Locale.ROOT);
      List<String> words = rest.isEmpty() ? List.of() : List.of(rest.split("\\s+"));
      int first = i + 1;
      StringBuilder code = new StringBuilder();
      i++;
      while (i < lines.length && !lines[i].strip().startsWith(fence)) {
        String l = lines[i];
        int strip = 0;
        while (strip < indent && strip < l.length() && l.charAt(strip) == ' ') {
          strip++;
        }
        code.append(l.substring(strip)).append('\n');
        i++;
      }
      blocks.add(new Block(language, words, first + 1, code.toString()));
      i++;
    }
    return blocks;
  }
}
