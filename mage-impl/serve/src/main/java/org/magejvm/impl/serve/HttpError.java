package org.magejvm.impl.serve;

/** An answer other than 200, with an OpenAI-style error body {@code {"error": {message, type, param, code}}}. */
final class HttpError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  final int status;
  final String type;
  final String param;
  final String code;

  HttpError(int status, String type, String param, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.type = type;
    this.param = param;
    this.code = code;
  }

  static HttpError badRequest(String param, String code, String message) {
    return new HttpError(400, "invalid_request_error", param, code, message);
  }

  /** The 503 of a request that arrives, or still waits, while the server shuts down. */
  static HttpError shuttingDown() {
    return new HttpError(503, "server_error", null, "shutting_down", "the server is shutting down");
  }
}
