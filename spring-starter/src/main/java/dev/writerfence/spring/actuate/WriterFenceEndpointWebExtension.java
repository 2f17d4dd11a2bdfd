package dev.writerfence.spring.actuate;

import dev.writerfence.WriterFenceUnavailableException;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The HTTP face of {@link WriterFenceEndpoint}: the same answers, and a status that says what went
 * wrong instead of a bare 500 — 503 with the fence's message when the database cannot answer (for
 * example, the schema is not installed), 400 for a fence name that breaks the naming rule, 404 for
 * a name never acquired.
 */
@EndpointWebExtension(endpoint = WriterFenceEndpoint.class)
public class WriterFenceEndpointWebExtension {
  private final WriterFenceEndpoint endpoint;

  /**
   * @param endpoint the endpoint this extends
   */
  public WriterFenceEndpointWebExtension(WriterFenceEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  /**
   * @return 200 with every fence row, or 503 with {@code {"error": …}}
   */
  @ReadOperation
  public WebEndpointResponse<Object> leases() {
    try {
      return new WebEndpointResponse<>(endpoint.leases());
    } catch (WriterFenceUnavailableException e) {
      return error(e, WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
    }
  }

  /**
   * @param fenceName the fence name
   * @return 200 with its row, 404 when never acquired, 400 for a bad name, 503 when the database
   *     cannot answer
   */
  @ReadOperation
  public WebEndpointResponse<Object> lease(@Selector String fenceName) {
    try {
      WriterFenceEndpoint.Lease lease = endpoint.lease(fenceName);
      return lease == null
          ? new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND)
          : new WebEndpointResponse<>(lease);
    } catch (IllegalArgumentException e) {
      return error(e, WebEndpointResponse.STATUS_BAD_REQUEST);
    } catch (WriterFenceUnavailableException e) {
      return error(e, WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
    }
  }

  private static WebEndpointResponse<Object> error(RuntimeException e, int status) {
    return new WebEndpointResponse<>(Map.of("error", String.valueOf(e.getMessage())), status);
  }
}
