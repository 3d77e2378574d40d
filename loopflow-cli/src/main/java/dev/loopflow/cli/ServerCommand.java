package dev.loopflow.cli;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.run.RunOptions;
import dev.loopflow.core.secrets.PrivateFiles;
import dev.loopflow.core.store.RunStore;
import dev.loopflow.observability.Observability;
import dev.loopflow.server.LoopflowServer;
import dev.loopflow.store.jdbc.workers.RunQueue;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "server", mixinStandardHelpOptions = true,
    description = "Serves the HTTP API and the web UI over the run store, until interrupted (Ctrl-C or SIGTERM). "
        + "The first line of output is the UI's URL with the token in its fragment.",
    footer = {"", "The token: --token, else LOOPFLOW_TOKEN, else the one kept in LOOPFLOW_HOME/server.token (made "
        + "once, mode 0600). Every /api call needs 'Authorization: Bearer TOKEN'. Binding to an address other than "
        + "loopback needs --token or LOOPFLOW_TOKEN.", "", "Examples:", "  loopflow server",
        "  loopflow server --port 0 --workflows ./flows"})
final class ServerCommand implements Callable<Integer> {
  /** The variable a token is configured with. */
  static final String TOKEN_ENV = "LOOPFLOW_TOKEN";
  /** Where a token made by the server is kept, under LOOPFLOW_HOME. */
  static final String TOKEN_FILE = "server.token";

  @Option(names = "--host", paramLabel = "ADDRESS", description = "The address to listen on (default 127.0.0.1).")
  String host = "127.0.0.1";

  @Option(names = "--port", paramLabel = "PORT", description = "The port (default 8080; 0 picks a free one).")
  int port = 8080;

  @Mixin
  StoreOption store;

  @Option(names = "--workflows", paramLabel = "DIR", description = "The directory of named workflows (default "
      + "LOOPFLOW_HOME/workflows, created when missing). Runs of a named workflow execute in it.")
  Path workflows;

  @Option(names = "--token", paramLabel = "TOKEN", description = "The API token (default: LOOPFLOW_TOKEN, else the "
      + "one kept in LOOPFLOW_HOME/server.token).")
  String token;

  @Option(names = "--max-body", paramLabel = "BYTES", description = "The largest request body accepted (default "
      + "1048576).")
  long maxBody = LoopflowServer.Builder.DEFAULT_MAX_BODY_BYTES;

  @Option(names = "--http-deny-private", description = "http nodes of runs started here refuse non-public addresses "
      + "(also: " + Support.HTTP_DENY_PRIVATE_ENV + "=1).")
  boolean httpDenyPrivate;

  @Option(names = "--sandbox", paramLabel = "MODE", description = "For process nodes of runs started here: "
      + Support.SANDBOX_HELP)
  String sandbox;

  @Option(names = "--dispatch", paramLabel = "local|workers", description = "Where runs started or resumed over "
      + "HTTP execute: local (default: in this process) or workers (queued in the PostgreSQL store for 'loopflow "
      + "worker' processes).")
  String dispatch = "local";

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      return serve(out, err);
    } finally {
      out.flush();
      err.flush();
    }
  }

  /** Metrics for {@code /metrics}, and tracing when the {@code OTEL_*} variables ask for it. */
  private static Observability observability() {
    try {
      return Observability.fromEnvironment(Support.environment, Observability.prometheusRegistry());
    } catch (IllegalArgumentException e) {
      throw CliError.usage(e.getMessage(), e);
    }
  }

  private int serve(PrintWriter out, PrintWriter err) throws InterruptedException {
    String configured = token != null ? token : System.getenv(TOKEN_ENV);
    if (configured != null && configured.isBlank()) {
      throw CliError.usage((token != null ? "--token" : TOKEN_ENV) + " is empty");
    }
    if (configured == null && !LoopflowServer.isLoopback(host)) {
      throw CliError.usage("--host " + host + " is not a loopback address: give a token with --token or "
          + TOKEN_ENV + " to serve other machines");
    }
    RunOptions.Builder policy = RunOptions.builder();
    if (!Support.httpPolicy(policy, httpDenyPrivate, System.getenv(), err)) {
      return Main.USAGE;
    }
    String t = configured != null ? configured : keptToken(Stores.home());
    Path dir = workflows != null ? workflows : Stores.home().resolve("workflows");
    try (RunStore s = Stores.open(store);
        Observability observability = observability()) {
      LoopflowServer.Builder b = LoopflowServer.builder().store(s).workflowsDir(dir).token(t).host(host).port(port)
          .maxBodyBytes(maxBody).observability(observability).log(line -> {
            err.println(line);
            err.flush();
          });
      if (!Support.sandbox(policy, sandbox, System.getenv(), s, err)) {
        return Main.USAGE;
      }
      policy.build().options().forEach(b::runOption);
      if (dispatch.equals("workers")) {
        try {
          b.dispatch(new QueueDispatch(RunQueue.of(
              Loopflow.builder().store(s).build())));
        } catch (IllegalArgumentException e) {
          throw CliError.usage("--dispatch workers: " + e.getMessage(), e);
        }
      } else if (!dispatch.equals("local")) {
        throw CliError.usage("--dispatch must be local or workers, was '" + dispatch + "'");
      }
      LoopflowServer server;
      try {
        server = b.build();
      } catch (IllegalArgumentException e) {
        throw CliError.usage(e.getMessage(), e);
      }
      CountDownLatch stop = new CountDownLatch(1);
      onStopSignal(stop::countDown);
      try {
        server.start();
      } catch (UncheckedIOException e) {
        throw CliError.failure(e.getMessage(), e);
      }
      try {
        out.println(server.url() + "#token=" + t);
        out.flush();
        err.println("loopflow: serving " + Stores.printable(store) + " and the workflows in " + server.workflowsDir()
            + "; stop with Ctrl-C");
        err.flush();
        stop.await();
        err.println("loopflow: stopping: runs executing here are cancelled");
        err.flush();
      } finally {
        server.close();
      }
      return Main.OK;
    }
  }

  /**
   * The token kept under {@code home}: read when the file holds one, else made (32 random bytes, base64url) and
   * written there readable by its owner only. Two servers starting at once end up with the same token.
   */
  static String keptToken(Path home) {
    Path file = home.resolve(TOKEN_FILE);
    try {
      String kept = Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8).strip() : "";
      if (isToken(kept)) {
        return kept;
      }
      PrivateFiles.createDirectories(home);
      byte[] random = new byte[32];
      new SecureRandom().nextBytes(random);
      String made = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
      boolean created = PrivateFiles.createFile(file);
      if (!created) {
        kept = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (isToken(kept)) {
          return kept; // another server made it first
        }
      }
      Files.writeString(file, made + "\n", StandardCharsets.UTF_8);
      return made;
    } catch (IOException e) {
      throw CliError.failure("cannot keep the server token in " + file + ": " + Errors.describe(e), e);
    }
  }

  private static boolean isToken(String s) {
    return !s.isEmpty() && s.length() <= 4096 && s.codePoints().noneMatch(c -> Character.isWhitespace(c)
        || Character.isISOControl(c));
  }

  /** Ctrl-C (SIGINT) and SIGTERM end the server cleanly; where signals cannot be caught, a shutdown hook does. */
  static void onStopSignal(Runnable stop) {
    for (String name : new String[] {"INT", "TERM"}) {
      try {
        sun.misc.Signal.handle(new sun.misc.Signal(name), sig -> stop.run());
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        Runtime.getRuntime().addShutdownHook(new Thread(stop));
      }
    }
  }
}
