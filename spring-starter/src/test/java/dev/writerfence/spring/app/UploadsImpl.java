package dev.writerfence.spring.app;

public class UploadsImpl implements Uploads {
  @Override
  public long upload(String fence) {
    return Writers.token(fence);
  }
}
