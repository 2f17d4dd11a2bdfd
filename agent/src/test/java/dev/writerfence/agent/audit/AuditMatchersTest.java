package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AuditMatchersTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "getObject",
        "headObject",
        "listObjectsV2",
        "selectObjectContent",
        "downloadFile",
        "resumeDownloadFile",
        "doesObjectExist",
        "close",
        "serviceName",
        "utilities"
      })
  void readsAndPlumbingPass(String operation) {
    assertThat(AuditMatchers.isRead(operation)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "putObject",
        "deleteObject",
        "copyObject",
        "uploadFile",
        "uploadPart",
        "createMultipartUpload",
        "restoreObject",
        "writeGetObjectResponse",
        "getaway", // default-deny: only the read prefix followed by a word boundary reads
        "listener",
        "someOperationAddedLater"
      })
  void everythingElseCountsAsAWrite(String operation) {
    assertThat(AuditMatchers.isRead(operation)).isFalse();
  }
}
