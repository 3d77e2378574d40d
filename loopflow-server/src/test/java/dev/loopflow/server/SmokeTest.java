package dev.loopflow.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SmokeTest {
  @TempDir Path tmp;

  @Test
  void healthAndARun() throws Exception {
    try (ServerHarness h = new ServerHarness(tmp)) {
      ServerHarness.Response r = h.get("/api/health");
      System.out.println(r + " " + r.raw().headers().map());
      r = h.post("/api/runs", ServerHarness.map("source", "name: t\nnodes:\n  - {id: a, type: transform, template: hi}\n"));
      System.out.println(r);
      String id = r.json().path("run_id").asText();
      h.awaitStatus(id, "completed");
      System.out.println(h.get("/api/runs/" + id));
      System.out.println(h.get("/api/runs"));
      System.out.println(h.get("/api/runs/" + id + "/executions"));
      System.out.println(h.get("/api/runs/" + id + "/events").raw().headers().map());
      System.out.println(h.get("/api/runs/" + id + "/events").body());
      System.out.println(h.get("/api/nope"));
      System.out.println(h.send(h.request("/api/health").POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build()));
      System.out.println(h.send(java.net.http.HttpRequest.newBuilder(h.uri("/api/health")).build()));
      System.out.println(h.send(java.net.http.HttpRequest.newBuilder(h.uri("/")).build()));
      System.out.println(h.get("/api/workflows/%2e%2e%2fx"));
      System.out.println(h.get("/api/workflows/..%2Fx"));
      System.out.println(h.get("/api/workflows/a%5Cb"));
      System.out.println(h.get("/api/workflows/a%00b"));
      assertThat(r.status()).isEqualTo(201);
    }
  }
}
