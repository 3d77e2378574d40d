package dev.loopflow.bench.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One HTTP/1.1 request for a run's event stream over a plain socket, read on the calling thread. A plain socket
 * rather than an HTTP client library: the benchmark measures the server, and a blocking read per (virtual) thread
 * adds the least between the server's write and the moment a frame is counted as received. {@link #close()} from
 * another thread cuts the stream at whatever byte it has reached, as a dropped network connection would.
 */
final class SseConnection implements AutoCloseable {
  private final Socket socket;
  private final InputStream body;
  private final int status;
  private final String contentType;

  private SseConnection(Socket socket, InputStream body, int status, String contentType) {
    this.socket = socket;
    this.body = body;
    this.status = status;
    this.contentType = contentType;
  }

  /** Sends the request and reads the response head. {@code lastEventId} ≤ 0 sends no Last-Event-ID. */
  static SseConnection open(URI base, String token, String runId, long lastEventId) throws IOException {
    return open(base, token, runId, lastEventId, 0);
  }

  /** As {@link #open(URI, String, String, long)}, with the socket's receive buffer set when {@code receiveBuffer} > 0. */
  static SseConnection open(URI base, String token, String runId, long lastEventId, int receiveBuffer)
      throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      if (receiveBuffer > 0) {
        s.setReceiveBufferSize(receiveBuffer); // before connecting, so that the window it advertises fits it
      }
      s.connect(new InetSocketAddress(base.getHost(), base.getPort()), 10_000);
      StringBuilder req = new StringBuilder()
          .append("GET /api/runs/").append(runId).append("/events HTTP/1.1\r\n")
          .append("Host: ").append(base.getHost()).append(':').append(base.getPort()).append("\r\n")
          .append("Authorization: Bearer ").append(token).append("\r\n")
          .append("Accept: text/event-stream\r\n")
          .append("Connection: close\r\n");
      if (lastEventId > 0) {
        req.append("Last-Event-ID: ").append(lastEventId).append("\r\n");
      }
      req.append("\r\n");
      OutputStream out = s.getOutputStream();
      out.write(req.toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = new BufferedInputStream(s.getInputStream(), 16 * 1024);
      String statusLine = readLine(in);
      if (statusLine == null || !statusLine.startsWith("HTTP/1.")) {
        throw new IOException("not an HTTP response: " + statusLine);
      }
      int status = Integer.parseInt(statusLine.split(" ", 3)[1]);
      boolean chunked = false;
      long length = -1;
      String type = "";
      for (String h = readLine(in); h != null && !h.isEmpty(); h = readLine(in)) {
        int colon = h.indexOf(':');
        if (colon < 0) {
          continue;
        }
        String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String value = h.substring(colon + 1).trim();
        switch (name) {
          case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
          case "content-length" -> length = Long.parseLong(value);
          case "content-type" -> type = value;
          default -> { }
        }
      }
      InputStream body = chunked ? new Chunked(in) : length >= 0 ? new Limited(in, length) : in;
      return new SseConnection(s, body, status, type);
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  int status() {
    return status;
  }

  String contentType() {
    return contentType;
  }

  /** The response body, de-chunked; -1 at its end. */
  int read(byte[] buf) throws IOException {
    return body.read(buf, 0, buf.length);
  }

  /** The whole remaining body as text (for an error response). */
  String readRest() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    body.transferTo(b);
    return b.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing is best effort; the socket is gone either way
    }
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int c = in.read(); c >= 0; c = in.read()) {
      if (c == '\n') {
        int n = sb.length();
        return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
      }
      sb.append((char) c);
    }
    return sb.isEmpty() ? null : sb.toString();
  }

  /** A chunked body: chunk sizes in hex, each chunk followed by CRLF, a zero-size chunk and trailers at the end. */
  private static final class Chunked extends InputStream {
    private final InputStream in;
    private long left;
    private boolean done;

    Chunked(InputStream in) {
      this.in = in;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (done) {
        return -1;
      }
      if (left == 0) {
        String size = readLine(in);
        if (size == null) {
          throw new IOException("the stream ended inside a chunked body");
        }
        int semi = size.indexOf(';');
        left = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
        if (left == 0) {
          for (String t = readLine(in); t != null && !t.isEmpty(); t = readLine(in)) {
            // trailers: none expected, skipped
          }
          done = true;
          return -1;
        }
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n < 0) {
        throw new IOException("the stream ended inside a chunk");
      }
      left -= n;
      if (left == 0 && (in.read() != '\r' || in.read() != '\n')) {
        throw new IOException("a chunk does not end with CRLF");
      }
      return n;
    }
  }

  /** A body with a Content-Length. */
  private static final class Limited extends InputStream {
    private final InputStream in;
    private long left;

    Limited(InputStream in, long length) {
      this.in = in;
      this.left = length;
    }

    @Override
    public int read() throws IOException {
      if (left <= 0) {
        return -1;
      }
      int c = in.read();
      if (c >= 0) {
        left--;
      }
      return c;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left <= 0) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n > 0) {
        left -= n;
      }
      return n;
    }
  }
}
