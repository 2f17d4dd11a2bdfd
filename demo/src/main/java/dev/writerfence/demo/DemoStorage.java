package dev.writerfence.demo;

import java.io.IOException;
import java.net.URI;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;

/** S3Proxy in this process: its in-memory {@code transient} store, on 127.0.0.1, path-style. */
public final class DemoStorage implements AutoCloseable {
  /** The access key of the server's one account. */
  public static final String ACCESS_KEY = "writer-fence-demo";

  /** Its secret key. */
  public static final String SECRET_KEY = "writer-fence-demo-secret";

  private final S3Proxy proxy;
  private final BlobStore store;
  private final URI endpoint;

  private DemoStorage(S3Proxy proxy, BlobStore store, URI endpoint) {
    this.proxy = proxy;
    this.store = store;
    this.endpoint = endpoint;
  }

  /**
   * @return a running server on a free port of 127.0.0.1; close it
   * @throws Exception when it does not start
   */
  public static DemoStorage start() throws Exception {
    Properties properties = new Properties();
    properties.setProperty("jclouds.identity", ACCESS_KEY);
    properties.setProperty("jclouds.credential", SECRET_KEY);
    BlobStore store = BlobStores.create("transient", properties);
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(store)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .build();
    proxy.start();
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!"STARTED".equals(proxy.getState())) {
      if (System.nanoTime() > deadline) {
        proxy.stop();
        throw new IllegalStateException("S3Proxy did not start within 30 s: " + proxy.getState());
      }
      Thread.sleep(10);
    }
    return new DemoStorage(proxy, store, URI.create("http://127.0.0.1:" + proxy.getPort()));
  }

  /**
   * @return {@code http://127.0.0.1:<port>}
   */
  public URI endpoint() {
    return endpoint;
  }

  @Override
  public void close() throws IOException {
    try {
      proxy.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      throw new IOException("S3Proxy did not stop cleanly", e);
    } finally {
      store.close();
    }
  }
}
