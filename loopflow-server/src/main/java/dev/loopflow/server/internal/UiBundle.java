package dev.loopflow.server.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The web UI: the files of the bundle under the class-path folder {@code loopflow-ui/} ({@code index.html} and
 * {@code assets/...}), when the build includes it. The folder's name is not a Java package name, so the files are
 * readable from any module. Without a bundle every page answers a short page saying so: a build without the UI is a
 * real configuration, and the API works the same.
 */
final class UiBundle {
  static final String ROOT = "loopflow-ui/";
  /** Asset paths as a bundler writes them: plain names in plain folders, never {@code ..}. */
  private static final Pattern ASSET = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,200}(/[A-Za-z0-9_][A-Za-z0-9_.-]{0,200}){0,8}");
  private static final Map<String, String> TYPES = Map.ofEntries(
      Map.entry("js", "text/javascript; charset=utf-8"), Map.entry("mjs", "text/javascript; charset=utf-8"),
      Map.entry("css", "text/css; charset=utf-8"), Map.entry("html", "text/html; charset=utf-8"),
      Map.entry("json", "application/json"), Map.entry("map", "application/json"),
      Map.entry("svg", "image/svg+xml"), Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"),
      Map.entry("jpeg", "image/jpeg"), Map.entry("gif", "image/gif"), Map.entry("webp", "image/webp"),
      Map.entry("ico", "image/x-icon"), Map.entry("woff", "font/woff"), Map.entry("woff2", "font/woff2"),
      Map.entry("ttf", "font/ttf"), Map.entry("txt", "text/plain; charset=utf-8"),
      Map.entry("wasm", "application/wasm"));

  static final String ABSENT_PAGE = """
      <!doctype html>
      <html lang="en">
      <head><meta charset="utf-8"><title>loopflow</title></head>
      <body>
      <h1>loopflow server</h1>
      <p>The web UI bundle is not part of this build. The HTTP API is served under <code>/api</code>
      (see docs/server.md); it needs the token printed when the server started.</p>
      </body>
      </html>
      """;

  private final ClassLoader loader;
  private final byte[] index;

  UiBundle(ClassLoader loader) {
    this.loader = loader;
    this.index = read(ROOT + "index.html");
  }

  boolean present() {
    return index != null;
  }

  /** The page every UI path answers with: the app's index, or the page saying the bundle is absent. */
  byte[] page() {
    return index != null ? index : ABSENT_PAGE.getBytes(StandardCharsets.UTF_8);
  }

  /** An asset's bytes, or null when {@code path} is not an asset of the bundle. */
  byte[] asset(String path) {
    // An asset is a file with an extension: a folder's name never reads as one (a folder on the file system would
    // read as its listing).
    if (index == null || path == null || !ASSET.matcher(path).matches() || path.contains("..")
        || path.lastIndexOf('.') < path.lastIndexOf('/') + 2) {
      return null;
    }
    return read(ROOT + "assets/" + path);
  }

  static String contentType(String path) {
    int dot = path.lastIndexOf('.');
    String ext = dot < 0 ? "" : path.substring(dot + 1).toLowerCase(Locale.ROOT);
    return TYPES.getOrDefault(ext, "application/octet-stream");
  }

  private byte[] read(String resource) {
    try (InputStream in = loader.getResourceAsStream(resource)) {
      return in == null ? null : in.readAllBytes();
    } catch (IOException e) {
      return null;
    }
  }
}
