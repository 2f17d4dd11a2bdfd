package com.example;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import org.postgresql.ds.PGSimpleDataSource;

/** One fenced call, as an application that took writer-fence from its published artifacts. */
public final class FencedUpload {
  private FencedUpload() {}

  public static void main(String[] args) throws Exception {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(System.getProperty("jdbc.url"));
    dataSource.setUser(System.getProperty("jdbc.user"));
    FenceSchema.defaults().install(dataSource);
    try (WriterFence fence = WriterFence.builder(dataSource).build()) {
      fence.run(
          FenceRequest.builder(System.getProperty("fence.name")).holderLabel("consumer").build(),
          () -> {
            long token =
                WriterFence.current(System.getProperty("fence.name")).orElseThrow().fencingToken();
            System.out.println("fenced call ran with fencing token " + token);
          });
    }
  }
}
