package dev.loopflow.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.core.store.RunStore;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A build with the web UI bundle: its files at / and /assets, the app's index on every page path. */
class UiBundleTest {
  static final String INDEX = "<!doctype html><title>loopflow app</title><script src=\"/assets/app-1a2b3c.js\">"
      + "</script>";

  @TempDir static Path tmp;
  static HttpApi api;
  static URLClassLoader loader;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    Path bundle = tmp.resolve("classes");
    Files.createDirectories(bundle.resolve("loopflow-ui/assets/fonts"));
    Files.writeString(bundle.resolve("loopflow-ui/index.html"), INDEX);
    Files.writeString(bundle.resolve("loopflow-ui/assets/app-1a2b3c.js"), "console.log('app')");
    Files.writeString(bundle.resolve("loopflow-ui/assets/app-1a2b3c.css"), "body{}");
    Files.writeString(bundle.resolve("loopflow-ui/assets/fonts/inter.woff2"), "font");
    Files.writeString(tmp.resolve("secret.txt"), "TOP-SECRET");
    loader = new URLClassLoader(new URL[] {bundle.toUri().toURL()}, null);
    api = new HttpApi(new Settings(RunStore.inMemory(), tmp.resolve("workflows"), "t0ken", "127.0.0.1", 0, 1 << 20,
        Duration.ofSeconds(15), Map.of(), Map.of(), 64, line -> {}, loader,
        dev.loopflow.observability.Observability.off()));
    api.start();
  }

  @AfterAll
  static void stop() throws Exception {
    api.close();
    loader.close();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "/runs/run_123", "/builder", "/builder/review"})
  void everyPagePathAnswersTheAppsIndexUncached(String path) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(INDEX);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    assertThat(r.headers().firstValue("Cache-Control").orElse("")).isEqualTo("no-cache");
    assertThat(r.headers().firstValue("Content-Security-Policy").orElse("")).contains("default-src 'self'");
  }

  @Test
  void assetsHaveTheirTypesAndALongCache() throws Exception {
    HttpResponse<String> js = get("/assets/app-1a2b3c.js");
    assertThat(js.statusCode()).isEqualTo(200);
    assertThat(js.body()).isEqualTo("console.log('app')");
    assertThat(js.headers().firstValue("Content-Type").orElse("")).startsWith("text/javascript");
    assertThat(js.headers().firstValue("Cache-Control").orElse("")).contains("max-age=31536000").contains("immutable");
    assertThat(get("/assets/app-1a2b3c.css").headers().firstValue("Content-Type").orElse("")).startsWith("text/css");
    assertThat(get("/assets/fonts/inter.woff2").headers().firstValue("Content-Type").orElse(""))
        .isEqualTo("font/woff2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/assets/nope.js", "/assets/fonts", "/assets/../index.html", "/assets/%2e%2e/index.html",
      "/assets/..%2f..%2fsecret.txt", "/assets/fonts/../../index.html", "/assets/.hidden.js", "/assets/a%5Cb.js",
      "/assets/%00.js"})
  void nothingOutsideTheAssetsIsServedAsAnAsset(String path) throws Exception {
    HttpResponse<String> r = get(path);
    assertThat(r.body()).doesNotContain("TOP-SECRET");
    if (r.statusCode() == 200) {
      // Jetty resolved the dots itself, to a page path: the app's index, never a file.
      assertThat(r.body()).isEqualTo(INDEX);
    } else {
      // 401: a path that is not a plain asset name is not public, and needs the token like any other.
      assertThat(r.statusCode()).isIn(400, 401, 404);
      assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    }
  }

  @Test
  void theApiStillNeedsItsToken() throws Exception {
    assertThat(get("/api/health").statusCode()).isEqualTo(401);
  }
}
