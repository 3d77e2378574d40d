package dev.loopflow.server.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Requests Jetty refuses before any route sees them (a URI with a NUL or an ambiguous encoded separator, a header
 * too large): answered with the API's JSON error body, mapped by status like every other error, instead of Jetty's
 * HTML page.
 */
final class JettyErrors extends ErrorHandler {
  @Override
  protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
      Callback callback) throws IOException {
    ErrorTable.Entry entry = ErrorTable.ofStatus(code);
    String text = "the request was refused before it reached a route: " + (message == null ? "HTTP " + code
        : JsonBody.printable(message));
    byte[] body = HttpApi.json(ApiError.withExtra(entry, text, null).body()).getBytes(StandardCharsets.UTF_8);
    response.getHeaders().put("Content-Type", "application/json");
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    response.write(true, ByteBuffer.wrap(body), callback);
  }
}
