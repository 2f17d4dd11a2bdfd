package dev.writerfence.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads the JSON files (other than JMH's, see {@link JmhResults}) a run leaves in its directory.
 */
final class RunFiles {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RunFiles() {}

  /**
   * @param file a JSON file
   * @return its tree
   * @throws IOException when it is missing or not JSON
   */
  static JsonNode read(Path file) throws IOException {
    return JSON.readTree(file.toFile());
  }

  /**
   * @param out the run's directory
   * @param file a file name in it
   * @return the file's tree, or {@code null} when the run did not write it
   * @throws IOException when it exists but cannot be read or is not JSON
   */
  static JsonNode readOrNull(Path out, String file) throws IOException {
    Path p = out.resolve(file);
    return Files.exists(p) ? read(p) : null;
  }
}
