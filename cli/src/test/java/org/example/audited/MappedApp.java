package org.example.audited;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.cli.audit.LocalS3;
import dev.writerfence.testing.WriterProcess;
import io.awspring.cloud.s3.InMemoryBufferingS3OutputStreamProvider;
import io.awspring.cloud.s3.S3ObjectConverter;
import io.awspring.cloud.s3.S3Template;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The writers of two buckets, for the writer map, run in its own JVM. Bucket one: {@code ingest}
 * writes three keys under fence A, {@code compact} writes under fence B (a second name on the same
 * bucket: inconsistent), {@code sweep} writes under no fence. Bucket two: {@code archive} writes
 * under fence A alone (fenced), once straight through the client and twice through Spring Cloud
 * AWS's {@code S3Template}, whose frames stand between the application and the client; {@code
 * publish} writes there fenced by the agent for its {@code @WriterFenced}, and {@code mirror}
 * fenced by the agent's {@code fence.methods} entry that the test gives it (both under fence A). An
 * LMDB environment (lmdbjava), whose volume is its directory: {@code index} writes two keys under
 * fence A, {@code reindex} writes under no fence. Each write is made from a line of its own: its
 * own call site.
 *
 * <p>Arguments: S3 endpoint, JDBC URL, fence A, fence B, bucket one, bucket two (both created by
 * the test), the LMDB environment's directory (existing). lmdbjava needs {@code --add-opens
 * java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED}.
 */
public final class MappedApp {
  /** The keys {@code ingest} writes, from one call site. */
  public static final String[] INGEST_KEYS = {"ingest/1.json", "ingest/2.json", "ingest/3.json"};

  /** The keys written through {@code S3Template}. */
  public static final String TEMPLATE_UPLOAD = "template/upload.bin";

  public static final String TEMPLATE_STORE = "template/store.json";

  /** The keys {@code index} writes into the LMDB environment, from one call site. */
  public static final String[] INDEX_KEYS = {"index-a", "index-b"};

  /** The key {@code reindex} writes there with no fence. */
  public static final String REINDEX_KEY = "reindex";

  /** The key {@code publish} writes, fenced for its annotation. */
  public static final String PUBLISHED = "published/1.json";

  /** The key {@code mirror} writes, fenced by a {@code fence.methods} entry. */
  public static final String MIRRORED = "mirrored/1.json";

  private MappedApp() {}

  public static void main(String[] args) throws Exception {
    URI endpoint = URI.create(args[0]);
    String fenceA = args[2];
    String fenceB = args[3];
    String one = args[4];
    String two = args[5];
    try (S3Client s3 = LocalS3.client(endpoint);
        S3Presigner presigner = LocalS3.presigner(endpoint);
        WriterFence fence = WriterFence.builder(WriterProcess.unpooled(args[1])).build()) {
      fence.run(
          FenceRequest.builder(fenceA).holderLabel("ingest").build(),
          () -> {
            for (String key : INGEST_KEYS) {
              ingest(s3, one, key);
            }
          });
      fence.run(
          FenceRequest.builder(fenceB).holderLabel("compact").build(), () -> compact(s3, one));
      sweep(s3, one);
      fence.run(
          FenceRequest.builder(fenceA).holderLabel("archive").build(), () -> archive(s3, two));
      S3Template template = template(s3, presigner);
      fence.run(
          FenceRequest.builder(fenceA).holderLabel("archive").build(),
          () -> viaTemplate(template, two));
      publish(fenceA, s3, two);
      mirror(fenceA, s3, two);
      try (Env<ByteBuffer> env =
          Env.create().setMapSize(16L << 20).setMaxDbs(1).open(new File(args[6]))) {
        Dbi<ByteBuffer> dbi = env.openDbi("index", DbiFlags.MDB_CREATE);
        fence.run(
            FenceRequest.builder(fenceA).holderLabel("index").build(),
            () -> {
              for (String key : INDEX_KEYS) {
                index(dbi, key);
              }
            });
        reindex(dbi);
      }
    }
    System.out.flush();
  }

  private static void ingest(S3Client s3, String bucket, String key) {
    s3.putObject(p -> p.bucket(bucket).key(key), RequestBody.fromString("{}"));
  }

  private static void compact(S3Client s3, String bucket) {
    s3.putObject(p -> p.bucket(bucket).key("compact/all.json"), RequestBody.fromString("{}"));
  }

  private static void sweep(S3Client s3, String bucket) {
    s3.deleteObject(d -> d.bucket(bucket).key("ingest/1.json"));
  }

  /** Two writes through the wrapper, one call site each: an upload and a stored object. */
  private static void viaTemplate(S3Template template, String bucket) {
    template.upload(bucket, TEMPLATE_UPLOAD, new ByteArrayInputStream(new byte[] {1}), null);
    template.store(bucket, TEMPLATE_STORE, Map.of("a", 1));
  }

  private static void index(Dbi<ByteBuffer> dbi, String key) {
    dbi.put(direct(key), direct("v"));
  }

  private static void reindex(Dbi<ByteBuffer> dbi) {
    dbi.put(direct(REINDEX_KEY), direct("v"));
  }

  /** lmdbjava's default buffers are direct ones. */
  private static ByteBuffer direct(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
  }

  /** Fenced by the agent for its annotation: the method that takes the fence. */
  @WriterFenced(value = "{0}", holder = "publish")
  public static void publish(String fence, S3Client s3, String bucket) {
    s3.putObject(p -> p.bucket(bucket).key(PUBLISHED), RequestBody.fromString("{}"));
  }

  /** Fenced by the agent's {@code fence.methods} entry for it: {@code MappedApp#mirror={0}}. */
  public static void mirror(String fence, S3Client s3, String bucket) {
    s3.putObject(p -> p.bucket(bucket).key(MIRRORED), RequestBody.fromString("{}"));
  }

  private static void archive(S3Client s3, String bucket) {
    s3.putObject(p -> p.bucket(bucket).key("archive/1.json"), RequestBody.fromString("{}"));
  }

  /** Spring Cloud AWS's template over the client, buffering uploads in memory. */
  static S3Template template(S3Client s3, S3Presigner presigner) {
    return new S3Template(
        s3, new InMemoryBufferingS3OutputStreamProvider(s3, null), new TextConverter(), presigner);
  }

  /** Stores an object as its text: the template's converter, with no JSON library to pick. */
  private static final class TextConverter implements S3ObjectConverter {
    @Override
    public <T> RequestBody write(T object) {
      return RequestBody.fromString(String.valueOf(object));
    }

    @Override
    public <T> T read(InputStream is, Class<T> type) {
      throw new UnsupportedOperationException("the app only writes");
    }

    @Override
    public String contentType() {
      return "text/plain";
    }
  }
}
