package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.loopflow.cli.CliTest.Run;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Credentials from every origin (the environment, the workflow text, inputs, HTTP responses, or nowhere but their
 * shape) taking every path out of a run (stdout, stderr, results, map keys, state, previews, error messages, pause
 * messages, the journaled source) never reach the SQLite file, the JSONL event file, or anything the CLI prints:
 * {@code run --json}, progress, {@code show} (tree, {@code --json}, {@code --source}) and {@code events}.
 *
 * <p>The environment credential, {@code LOOPFLOW_TEST_API_KEY}, is set by this module's surefire configuration.
 */
class SecretsCliTest {
  private static final String ENV_KEY = System.getenv("LOOPFLOW_TEST_API_KEY");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ISSUED = "srvIssued-7Hq2Lw9Xk4Pz";
  private static HttpServer server;
  private static String url;

  @TempDir Path dir;

  @BeforeAll
  static void echoServer() throws IOException {
    assertThat(ENV_KEY).as("LOOPFLOW_TEST_API_KEY, set by loopflow-cli's surefire configuration").isNotNull();
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    // Reflects the credentials it was sent: in the body, as a map key, and in a response header.
    server.createContext("/echo", ex -> {
      String auth = String.valueOf(ex.getRequestHeaders().getFirst("Authorization"));
      Map<String, Object> seen = new LinkedHashMap<>();
      seen.put("authorization", auth);
      seen.put("key", String.valueOf(ex.getRequestHeaders().getFirst("X-Api-Key")));
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("seen", seen);
      body.put("by_value", Map.of(auth, 1, "k " + seen.get("key"), 2));
      ex.getResponseHeaders().add("X-Echo", auth);
      reply(ex, body);
    });
    server.createContext("/login", ex -> reply(ex, Map.of("access_token", ISSUED, "token_type", "bearer")));
    server.start();
    url = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private static void reply(HttpExchange ex, Object body) throws IOException {
    byte[] b = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(200, b.length);
    ex.getResponseBody().write(b);
    ex.close();
  }

  @AfterAll
  static void stop() {
    server.stop(0);
  }

  static Stream<Arguments> leaks() {
    String key = System.getenv("LOOPFLOW_TEST_API_KEY");
    return Stream.of(
        Arguments.of("an environment key echoed to stdout and stderr", """
            nodes:
              - id: echo
                bash: 'echo "key=$LOOPFLOW_TEST_API_KEY"; echo "stderr $LOOPFLOW_TEST_API_KEY" >&2'
            """, List.of(), List.of(key), 0, "key=[redacted]"),
        Arguments.of("an environment key returned as nested map keys by a script", """
            nodes:
              - id: read
                bash: 'printf %s "$LOOPFLOW_TEST_API_KEY"'
                output: tok
              - id: keyed
                depends_on: [read]
                run: |
                  return {outer = {[state.tok] = {[state.tok .. "-x"] = 1}}, flag = {[state.tok] = true}}
            """, List.of(), List.of(key), 0, "[redacted]-x"),
        Arguments.of("an environment key in a failing node's error message", """
            nodes:
              - id: call
                bash: 'echo "401 for key $LOOPFLOW_TEST_API_KEY" >&2; exit 1'
            """, List.of(), List.of(key), 1, "401 for key [redacted]"),
        Arguments.of("an environment key across the cut of a preview", """
            nodes:
              - id: long
                bash: 'printf "%0110d%s" 0 "$LOOPFLOW_TEST_API_KEY"'
            """, List.of(), List.of(key, key.substring(0, 6), key.substring(key.length() - 6)), 0, "[redacted]"),
        Arguments.of("hard-coded http headers, reflected by the server in body, map keys and headers", """
            nodes:
              - id: call
                type: http
                url: "URL/echo"
                headers: {Authorization: "Bearer hcTok-5Yw2Qe8Rt1Uz", X-Api-Key: "hcKey-9Pa3Sd6Fg0Hj"}
            """, List.of(), List.of("hcTok-5Yw2Qe8Rt1Uz", "hcKey-9Pa3Sd6Fg0Hj"), 0, "k [redacted]"),
        Arguments.of("a hard-coded api_key and a shell env map credential", """
            nodes:
              - id: cfg
                type: transform
                value: {service: {api_key: "hcApi-3Kd8Lm2Nq7"}, note: "ok"}
              - id: use
                depends_on: [cfg]
                bash: 'echo "using $SERVICE_TOKEN"'
                env: {SERVICE_TOKEN: "hcEnv-6Tb1Vc4Xz9"}
            """, List.of(), List.of("hcApi-3Kd8Lm2Nq7", "hcEnv-6Tb1Vc4Xz9"), 0, "using [redacted]"),
        Arguments.of("inputs rendered into credential headers", """
            input: {api_token: string, t: string}
            nodes:
              - id: call
                type: http
                url: "URL/echo"
                headers: {Authorization: "Bearer {{ input.t }}", X-Api-Key: "{{ input.api_token }}"}
            """, List.of("--input", "api_token=inApi-8Gh3Jk6Lz1", "--input", "t=inTok-2Ws5Ed8Rf4"),
            List.of("inApi-8Gh3Jk6Lz1", "inTok-2Ws5Ed8Rf4"), 0, "k [redacted]"),
        Arguments.of("a writeOnly input in an approval's question", """
            input:
              pin: {type: string, writeOnly: true}
            nodes:
              - id: ask
                approval: "Use pin {{ input.pin }}?"
            """, List.of("--input", "pin=pinVal-4Rt7Yu0Io3"), List.of("pinVal-4Rt7Yu0Io3"), 3, "\"paused\""),
        Arguments.of("tokens known only by their shape, also as a map key", """
            nodes:
              - id: mint
                bash: |
                  a=ghp_; b=0123456789abcdefghijABCDEFGHIJ012345
                  c=sk-ant-; d=api03-AAAAbbbbCCCCdddd1234
                  e=eyJhbGciOiJIUzI1NiJ9; f=eyJzdWIiOiIxMjM0NTY3ODkwIn0; g=dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U
                  echo "$a$b $c$d $e.$f.$g"
                output: minted
              - id: keyed
                depends_on: [mint]
                run: |
                  return {minted_as_key = {[state.minted] = 1}}
            """, List.of(), List.of("ghp_0123456789abcdefghijABCDEFGHIJ012345", "sk-ant-api03-AAAAbbbbCCCCdddd1234",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"), 0,
            "[redacted] [redacted] [redacted]"),
        Arguments.of("a token issued in a response, then used by a later node", """
            nodes:
              - id: login
                type: http
                url: "URL/login"
              - id: use
                depends_on: [login]
                bash: 'echo "session {{ login.body.access_token }}"'
            """, List.of(), List.of(ISSUED), 0, "session [redacted]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("leaks")
  void aCredentialNeverReachesTheStoreTheEventFileOrTheOutput(String name, String yaml, List<String> args,
      List<String> secrets, int status, String flowed) throws Exception {
    Path wf = dir.resolve("wf.yaml");
    Files.writeString(wf, yaml.replace("URL", url));
    Path db = dir.resolve("runs.db");
    Path jsonl = dir.resolve("events.jsonl");
    String store = "sqlite:" + db;
    List<String> command = new ArrayList<>(List.of("run", wf.toString(), "--store", store, "--events-jsonl",
        jsonl.toString(), "--json"));
    command.addAll(args);

    Run run = cli(command.toArray(String[]::new));

    assertThat(run.status()).as(run.err()).isEqualTo(status);
    assertThat(run.out()).as("the credential reached the output, masked").contains(flowed);
    String id = JSON.readTree(run.out()).get("run_id").asText();
    Map<String, String> seen = new LinkedHashMap<>();
    seen.put("run --json", run.out());
    seen.put("run's stderr", run.err());
    seen.put("show", cli("show", id, "--store", store).out());
    seen.put("show --json", cli("show", id, "--store", store, "--json").out());
    seen.put("show --source", cli("show", id, "--store", store, "--source").out());
    seen.put("events", cli("events", id, "--store", store).out());
    for (Path f : List.of(db, Path.of(db + "-wal"), jsonl)) {
      if (Files.exists(f)) {
        seen.put(f.getFileName().toString(), new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
      }
    }
    seen.forEach((where, text) -> {
      for (String secret : secrets) {
        assertThat(text).as("%s holds %s", where, secret).doesNotContain(secret);
      }
    });
    assertThat(seen.get("show --json")).as("show --json prints what run --json printed")
        .isEqualTo(run.out().substring(0, run.out().indexOf("\n}") + 3));
    assertThat(mode(db)).isEqualTo("rw-------");
    assertThat(mode(jsonl)).isEqualTo("rw-------");
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void theHomeTheCliCreatesIsOwnerOnly_bugWorldReadableStoreFiles() throws Exception {
    Path home = dir.resolve("fresh/home");
    Path wf = dir.resolve("wf.yaml");
    Files.writeString(wf, "nodes:\n  - id: a\n    bash: echo hi\n");
    String before = System.getProperty("loopflow.home");
    System.setProperty("loopflow.home", home.toString());
    try {
      Run r = cli("run", wf.toString(), "--quiet", "--events-jsonl", dir.resolve("ev.jsonl").toString());
      assertThat(r.status()).as(r.err()).isZero();
    } finally {
      System.setProperty("loopflow.home", before);
    }
    assertThat(mode(home)).isEqualTo("rwx------");
    assertThat(mode(home.getParent())).isEqualTo("rwx------");
    assertThat(mode(home.resolve("loopflow.db"))).isEqualTo("rw-------");
    assertThat(mode(dir.resolve("ev.jsonl"))).isEqualTo("rw-------");
  }

  private static final String HARD_CODED = """
      nodes:
        - id: flaky
          bash: 'test -f MARKER || { touch MARKER; exit 1; }; echo ok'
        - id: use
          depends_on: [flaky]
          bash: 'test "$SERVICE_TOKEN" = "hcRes-1Qa2Ws3Ed4" && echo same'
          env: {SERVICE_TOKEN: "hcRes-1Qa2Ws3Ed4"}
      """;

  private String failedRun(Path wf, String store) throws Exception {
    Files.writeString(wf, HARD_CODED.replace("MARKER", dir.resolve("ran").toString()));
    Run first = cli("run", wf.toString(), "--store", store, "--json", "--quiet");
    assertThat(first.status()).as(first.err()).isEqualTo(1);
    return JSON.readTree(first.out()).get("run_id").asText();
  }

  @Test
  void aRunWithAHardCodedTokenResumesFromItsUnchangedFileWithTheRealToken() throws Exception {
    Path wf = dir.resolve("hc.yaml");
    String store = "sqlite:" + dir.resolve("runs.db");
    String id = failedRun(wf, store);
    assertThat(cli("show", id, "--store", store, "--source").out()).doesNotContain("hcRes-1Qa2Ws3Ed4");

    Run resumed = cli("resume", id, "--store", store, "--json", "--quiet");

    assertThat(resumed.status()).as(resumed.err()).isZero();
    assertThat(JSON.readTree(resumed.out()).at("/nodes/use/output").asText()).isEqualTo("same");
  }

  @Test
  void theJournaledSourceWithMaskedCredentialsIsNeverRunInPlaceOfTheFile() throws Exception {
    Path wf = dir.resolve("hc.yaml");
    String store = "sqlite:" + dir.resolve("runs.db");
    String id = failedRun(wf, store);
    Files.writeString(wf, Files.readString(wf) + "  - id: extra\n    bash: echo extra\n");

    Run original = cli("resume", id, "--store", store, "--original", "--quiet");
    assertThat(original.status()).isEqualTo(2);
    assertThat(original.err()).contains("had credentials masked").contains(wf.toString());

    Files.delete(wf);
    Run missing = cli("resume", id, "--store", store, "--quiet");
    assertThat(missing.status()).isEqualTo(2);
    assertThat(missing.err()).contains("had credentials masked");
  }
}
