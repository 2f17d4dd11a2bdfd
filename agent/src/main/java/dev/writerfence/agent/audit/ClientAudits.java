package dev.writerfence.agent.audit;

import dev.writerfence.agent.audit.azure.AzureBlobAudit;
import dev.writerfence.agent.audit.file.FileWritesAudit;
import dev.writerfence.agent.audit.gcs.GcsAudit;
import dev.writerfence.agent.audit.lmdb.LmdbAudit;
import dev.writerfence.agent.audit.minio.MinioAudit;
import dev.writerfence.agent.audit.rocksdb.RocksDbAudit;
import dev.writerfence.agent.audit.s3v1.AwsS3V1Audit;
import dev.writerfence.agent.audit.s3v2.AwsS3V2Audit;
import java.util.List;

/** The audited storage clients, in the order they are installed. Add a new client here. */
public final class ClientAudits {
  private ClientAudits() {}

  /**
   * @return every client instrumentation; never {@code null}
   */
  public static List<ClientAudit> all() {
    return List.of(
        new AwsS3V2Audit(),
        new AwsS3V1Audit(),
        new MinioAudit(),
        new GcsAudit(),
        new AzureBlobAudit(),
        new FileWritesAudit(),
        new LmdbAudit(),
        new RocksDbAudit());
  }
}
