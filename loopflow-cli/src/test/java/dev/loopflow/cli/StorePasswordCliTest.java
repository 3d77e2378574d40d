package dev.loopflow.cli;

import static dev.loopflow.cli.CliTest.cli;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loopflow.cli.CliTest.Run;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A store URL's password never reaches stdout or stderr, whatever the command, however the URL is spelled and
 * whether it comes from {@code --store} or {@code LOOPFLOW_STORE}, with {@code --debug} too. Regression: {@code
 * cannot open the run store 'postgresql://admin:PASSWORD@...'} printed the password.
 */
class StorePasswordCliTest {
  @TempDir
  Path dir;

  private Map<String, String> oldEnv;
  private String oldHome;

  @BeforeEach
  void home() {
    oldHome = System.getProperty("loopflow.home");
    System.setProperty("loopflow.home", dir.resolve("home").toString());
    oldEnv = Support.environment;
  }

  @AfterEach
  void restore() {
    if (oldHome == null) {
      System.clearProperty("loopflow.home");
    } else {
      System.setProperty("loopflow.home", oldHome);
    }
    Support.environment = oldEnv;
  }

  /** A URL and every spelling of its secret that must not be printed. */
  static Arguments url(String url, String... secrets) {
    return Arguments.of(url, List.of(secrets));
  }

  static Stream<Arguments> urls() {
    List<Arguments> c = new ArrayList<>();
    c.add(url("postgresql://admin:S3cr3tPw@127.0.0.1:1/x", "S3cr3tPw"));
    c.add(url("postgres://admin:S3cr3tPw@127.0.0.1:1/x", "S3cr3tPw"));
    c.add(url("jdbc:postgresql://admin:S3cr3tPw@127.0.0.1:1/x", "S3cr3tPw"));
    c.add(url("  postgresql://admin:S3cr3tPw@127.0.0.1:1/x  ", "S3cr3tPw"));
    c.add(url("postgresql://admin@127.0.0.1:1/x?password=S3cr3tPw", "S3cr3tPw"));
    c.add(url("postgresql://127.0.0.1:1/x?user=admin&password=S3cr3tPw&ssl=false", "S3cr3tPw"));
    c.add(url("postgresql://127.0.0.1:1/x?PASSWORD=S3cr3tPw", "S3cr3tPw"));
    c.add(url("postgresql://127.0.0.1:1/x?PassWord=S3cr3tPw", "S3cr3tPw"));
    c.add(url("postgresql://admin@127.0.0.1:1/x?sslpassword=S3cr3tPw&sslmode=require", "S3cr3tPw"));
    c.add(url("jdbc:postgresql://127.0.0.1:1/x?user=a&password=S3cr3tPw", "S3cr3tPw"));
    c.add(url("postgresql://admin:S3%40cr3tPw@127.0.0.1:1/x", "S3%40cr3tPw", "S3@cr3tPw", "cr3tPw"));
    c.add(url("postgresql://127.0.0.1:1/x?password=%53%33cr3tPw", "%53%33cr3tPw", "S3cr3tPw"));
    c.add(url("postgresql://admin:S3@cr3tPw@127.0.0.1:1/x", "S3@cr3tPw", "cr3tPw"));
    c.add(url("postgresql://admin:S3/cr3tPw@127.0.0.1:1/x", "S3/cr3tPw", "cr3tPw"));
    c.add(url("postgresql://admin:S3?cr3tPw@127.0.0.1:1/x", "S3?cr3tPw", "cr3tPw"));
    c.add(url("postgresql://admin:S3#cr3tPw@127.0.0.1:1/x", "S3#cr3tPw", "cr3tPw"));
    c.add(url("postgresql://admin:S3 cr3tPw@127.0.0.1:1/x", "S3 cr3tPw", "cr3tPw"));
    c.add(url("postgresql://admin:S3cr3tPw@127.0.0.1:99999/x", "S3cr3tPw"));
    c.add(url("postgresql://admin:S3cr3tPw@[::1]:1/x", "S3cr3tPw"));
    c.add(url("postgresql://admin:S3cr3tPw@127.0.0.1:1/x?password=Other9Pw", "S3cr3tPw", "Other9Pw"));
    c.add(url("mysql://admin:S3cr3tPw@127.0.0.1:1/x", "S3cr3tPw"));
    c.add(url("bogus://admin:S3cr3tPw@x?password=Other9Pw", "S3cr3tPw", "Other9Pw"));
    c.add(url("sqlite:/nonexistent/x.db?password=S3cr3tPw", "S3cr3tPw"));
    return c.stream();
  }

  static Stream<Arguments> processes() {
    return Stream.of(
        Arguments.of(List.of("runs", "--store", "postgresql://admin:S3cr3tPw@127.0.0.1:1/x"), null),
        Arguments.of(List.of("runs", "--store", "postgresql://admin:S3/cr3tPw@127.0.0.1:1/x", "--debug"), null),
        Arguments.of(List.of("runs", "--store", "postgresql://admin:S3cr3tPw@127.0.0.1:99999/x"), null),
        Arguments.of(List.of("runs", "--store",
            "postgresql://admin@127.0.0.1:1/x?sslpassword=S3cr3tPw&sslmode=require&password=S3cr3tPw"), null),
        Arguments.of(List.of("server", "--port", "0", "--store", "postgresql://admin:S3cr3tPw@127.0.0.1:1/x"), null),
        Arguments.of(List.of("worker", "--store", "postgresql://admin:S3cr3tPw@127.0.0.1:1/x"), null),
        Arguments.of(List.of("worker"), "postgresql://admin:S3cr3tPw@127.0.0.1:1/x?password=S3cr3tPw"),
        Arguments.of(List.of("show", "run_x", "--debug"), "jdbc:postgresql://127.0.0.1:1/x?PASSWORD=S3cr3tPw"));
  }

  /** The real program in its own process: what the driver or the JVM print themselves is seen too. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("processes")
  void aSeparateProcessNeverPrintsTheStorePassword(List<String> args, String storeVariable) throws Exception {
    String jvm = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(jvm, "-cp", TestJvm.classPathOption(), "dev.loopflow.cli.Main"));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    pb.environment().put("LOOPFLOW_HOME", dir.resolve("home").toString());
    pb.environment().remove("LOOPFLOW_STORE");
    if (storeVariable != null) {
      pb.environment().put("LOOPFLOW_STORE", storeVariable);
    }
    pb.redirectErrorStream(true);
    Process p = pb.start();
    p.getOutputStream().close();
    String all = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(all).isNotZero();
    assertThat(all).as(String.join(" ", args)).contains("loopflow").doesNotContain("S3cr3tPw", "cr3tPw");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("urls")
  void theStorePasswordIsNeverPrinted(String url, List<String> secrets) {
    List<String[]> commands = List.of(
        new String[] {"runs", "--store", url},
        new String[] {"show", "run_x", "--store", url},
        new String[] {"cancel", "run_x", "--store", url},
        new String[] {"runs", "--store", url, "--debug"});
    for (String[] args : commands) {
      Run r = cli(args);
      assertThat(r.status()).as(String.join(" ", args)).isNotZero();
      for (String secret : secrets) {
        assertThat(r.out() + r.err()).as("%s%n%s", String.join(" ", args), r.err()).doesNotContain(secret);
      }
    }
    Map<String, String> env = new HashMap<>(oldEnv);
    env.put("LOOPFLOW_STORE", url);
    Support.environment = Map.copyOf(env);
    for (String[] args : List.of(new String[] {"runs"}, new String[] {"events", "run_x"},
        new String[] {"runs", "--debug"})) {
      Run r = cli(args);
      assertThat(r.status()).as("LOOPFLOW_STORE, " + String.join(" ", args)).isNotZero();
      for (String secret : secrets) {
        assertThat(r.out() + r.err()).as("LOOPFLOW_STORE, %s%n%s", String.join(" ", args), r.err())
            .doesNotContain(secret);
      }
    }
  }
}
