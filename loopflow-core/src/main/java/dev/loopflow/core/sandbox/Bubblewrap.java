package dev.loopflow.core.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The bubblewrap command line that contains one process under a policy, and whether bubblewrap works here.
 *
 * <p>Design notes. Mounts are applied in order of path depth, so the most specific rule wins whichever way paths
 * nest: a working directory inside loopflow's home is writable, a store inside the working directory still reads
 * as empty; at equal depth a hiding rule comes after a writable one, so a {@code write:} path can never uncover
 * what is always hidden. Hidden directories become empty read-only tmpfs mounts (read-only is applied after every
 * mount, so paths nested below them can still be mounted), hidden files become {@code /dev/null}. Paths are
 * resolved to real paths first, so a symlink cannot lead around a rule. {@code --unshare-pid} with
 * {@code --die-with-parent} makes the namespace's first process the end of everything: when the command exits, is
 * killed, or the engine dies, the kernel kills every process the command started. Capabilities are dropped (also
 * when loopflow runs as root), so nothing inside can remount the read-only filesystem.
 */
final class Bubblewrap {
  private Bubblewrap() {}

  /**
   * The bubblewrap program: the system property {@code loopflow.bwrap} or the environment variable
   * {@code LOOPFLOW_BWRAP} when set (tests point them at nothing to see a machine without it), else bwrap on PATH.
   */
  static String program() {
    String configured = System.getProperty("loopflow.bwrap");
    if (configured == null || configured.isBlank()) {
      configured = System.getenv("LOOPFLOW_BWRAP");
    }
    if (configured != null && !configured.isBlank()) {
      return configured;
    }
    String path = System.getenv("PATH");
    for (String dir : (path == null ? "/usr/bin:/bin" : path).split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "bwrap"))) {
        return Path.of(dir, "bwrap").toString();
      }
    }
    return "bwrap";
  }

  /** Credential stores under a home directory that a contained process reads as empty. */
  static final List<String> HOME_SECRETS = List.of(".ssh", ".aws", ".config", ".docker", ".gnupg", ".kube",
      ".azure", ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".my.cnf", ".vault-token", ".boto",
      ".s3cfg", ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties", ".cargo/credentials",
      ".cargo/credentials.toml", ".terraform.d", ".password-store", ".local/share/keyrings", ".loopflow",
      ".bash_history", ".python_history", ".psql_history", ".mysql_history", ".lesshst", ".viminfo");

  /** System files and sockets a contained process reads as empty or cannot connect to. */
  static final List<String> SYSTEM_SECRETS = List.of("/etc/shadow", "/etc/gshadow", "/etc/sudoers.d",
      "/var/run/docker.sock", "/run/docker.sock", "/run/containerd", "/run/podman", "/run/postgresql",
      "/var/run/postgresql", "/run/mysqld", "/var/lib/docker");

  record Availability(boolean available, String reason) {}

  private static final Map<String, Availability> PROBED = new ConcurrentHashMap<>();

  /** Whether bubblewrap can build a sandbox here (probed once per program per JVM, with the options it will use). */
  static Availability availability() {
    return PROBED.computeIfAbsent(program(), Bubblewrap::probe);
  }

  private static Availability probe(String program) {
    List<String> cmd = List.of(program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
        "--unshare-ipc", "--unshare-net", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--", "true");
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      Process p = Spawner.start(pb);
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readNBytes(4096);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Availability(false, program + " did not answer within 30 seconds");
      }
      if (p.exitValue() == 0) {
        return new Availability(true, null);
      }
      String said = new String(out, StandardCharsets.UTF_8).strip().lines().findFirst().orElse("");
      return new Availability(false, program + " exited with status " + p.exitValue()
          + (said.isEmpty() ? "" : ": " + said));
    } catch (IOException e) {
      return new Availability(false, "cannot run " + program + " (install the bubblewrap package)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Availability(false, "interrupted while checking " + program);
    }
  }

  private enum Kind { WRITE, HIDE }

  private record Mount(Path path, Kind kind) {}

  /**
   * The bubblewrap command line that runs {@code command} in {@code cwd} under {@code policy}.
   *
   * @param hidden paths the run hides on top of the always-hidden ones (loopflow's home, the store's files)
   * @param homes home directories whose credential stores are hidden
   */
  static List<String> command(String program, SandboxPolicy policy, Path cwd, Collection<Path> hidden,
      Collection<Path> homes, List<String> command) {
    List<Mount> mounts = new ArrayList<>();
    Path home = Path.of(System.getProperty("user.home", "/"));
    addReal(mounts, Path.of("/tmp"), Kind.WRITE);
    addReal(mounts, cwd, Kind.WRITE);
    for (String w : policy.write()) {
      addReal(mounts, resolve(w, cwd, home), Kind.WRITE);
    }
    for (Path h : homes) {
      for (String s : HOME_SECRETS) {
        addReal(mounts, h.resolve(s), Kind.HIDE);
      }
    }
    for (String s : SYSTEM_SECRETS) {
      addReal(mounts, Path.of(s), Kind.HIDE);
    }
    for (Path p : hidden) {
      addReal(mounts, p, Kind.HIDE);
    }
    for (String d : policy.readDeny()) {
      addReal(mounts, resolve(d, cwd, home), Kind.HIDE);
    }
    // Deeper paths after shallower ones; at equal depth hiding after writing. The sort is stable.
    mounts.sort(Comparator.comparingInt((Mount m) -> m.path.getNameCount()).thenComparing(m -> m.kind));
    List<String> argv = new ArrayList<>(List.of(program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--cap-drop", "ALL"));
    if (!policy.network()) {
      argv.add("--unshare-net");
    }
    Set<String> seen = new LinkedHashSet<>();
    List<String> readOnlyAfter = new ArrayList<>();
    for (Mount m : mounts) {
      String p = m.path.toString();
      if (!seen.add(m.kind + p)) {
        continue;
      }
      if (m.kind == Kind.WRITE) {
        argv.addAll(List.of("--bind", p, p));
      } else if (Files.isDirectory(m.path)) {
        argv.addAll(List.of("--tmpfs", p));
        readOnlyAfter.add(p);
      } else {
        argv.addAll(List.of("--ro-bind", "/dev/null", p));
      }
    }
    for (String p : readOnlyAfter) {
      argv.addAll(List.of("--remount-ro", p));
    }
    argv.addAll(List.of("--chdir", cwd.toString(), "--"));
    argv.addAll(command);
    return argv;
  }

  /**
   * The first {@code write} path of the policy whose real location is outside the working directory and
   * {@code /tmp}, or null when there is none (a path that does not exist gets no mount, so it is none).
   */
  static String writeOutsideWorkspace(SandboxPolicy policy, Path cwd) {
    Path home = Path.of(System.getProperty("user.home", "/"));
    List<Path> inside = new ArrayList<>();
    for (Path p : List.of(cwd, Path.of("/tmp"))) {
      try {
        inside.add(p.toAbsolutePath().normalize().toRealPath());
      } catch (IOException | SecurityException e) {
        // not there: nothing is inside it
      }
    }
    for (String w : policy.write()) {
      Path real;
      try {
        real = resolve(w, cwd, home).toAbsolutePath().normalize().toRealPath();
      } catch (IOException | SecurityException e) {
        continue;
      }
      if (inside.stream().noneMatch(real::startsWith)) {
        return w;
      }
    }
    return null;
  }

  private static Path resolve(String path, Path cwd, Path home) {
    if (path.equals("~")) {
      return home;
    }
    if (path.startsWith("~/")) {
      return home.resolve(path.substring(2));
    }
    return cwd.resolve(path);
  }

  /** Adds the rule for the path's real location; a path that does not exist needs no rule. */
  private static void addReal(List<Mount> mounts, Path p, Kind kind) {
    try {
      mounts.add(new Mount(p.toAbsolutePath().normalize().toRealPath(), kind));
    } catch (IOException | SecurityException e) {
      // nothing there: nothing to hide, nothing to write into
    }
  }
}
