package dev.writerfence.demo;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/** Reads back the stamp of every object in the bucket after a run, for the checks. */
final class StampReader {
  private StampReader() {}

  /**
   * Reads each object's user metadata and body through getObject: the body too, since a torn write
   * shows only as metadata and body that disagree.
   *
   * @param s3 a client of the storage
   * @param bucket the bucket the writers wrote
   * @return every object's stamp, by key
   * @throws IOException when a body is not JSON
   */
  static Map<String, ObjectStamp> readAll(S3Client s3, String bucket) throws IOException {
    Map<String, ObjectStamp> stamps = new TreeMap<>();
    for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
      ResponseBytes<GetObjectResponse> object =
          s3.getObjectAsBytes(b -> b.bucket(bucket).key(o.key()));
      Map<String, String> metadata = object.response().metadata();
      JsonNode body = Json.MAPPER.readTree(object.asByteArray());
      JsonNode bodyToken = body.get("fencing_token");
      stamps.put(
          o.key(),
          new ObjectStamp(
              o.key(),
              parseToken(metadata.get(CorpusWriter.TOKEN_METADATA)),
              metadata.get(CorpusWriter.HOLDER_METADATA),
              bodyToken != null && bodyToken.canConvertToLong() ? bodyToken.asLong() : null));
    }
    return stamps;
  }

  /** A token that is missing or not a number reads as none; the checks report the object. */
  private static Long parseToken(String value) {
    try {
      return value == null ? null : Long.valueOf(value);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
