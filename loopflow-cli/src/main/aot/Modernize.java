import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/*
 * Rewrites the class files of the CLI's jar that are older than Java 6 (class file version 50) in the libraries it
 * loads to start and to run a workflow (luaj, picocli and the expression library inside Jinjava, compiled for Java
 * 5) as Java 8 class files (version 52), with the stack map frames the type-checking verifier needs. The JVM's AOT cache cannot link such old classes ahead of time: it
 * skips them, and with them every class that extends or refers to them (the Lua sandbox among them), and JDK 25.0.3
 * fails while writing a cache for a run that executed Lua.
 *
 * What must stay true: the instructions are unchanged. Only the version is raised and the method bodies are
 * re-encoded, which computes their stack maps. Each rewritten class is verified here, as the JVM's type-checking
 * verifier would when it loads it; a class that fails, or cannot be rewritten (its hierarchy names classes the jar
 * does not hold), is kept as it was. The jar is replaced
 * only once the new one is complete.
 *
 * Run by the launcher before its AOT training run, with the JDK it found (25 or newer):
 *   java Modernize.java path/to/loopflow.jar
 * It prints one line: how many classes it rewrote and kept.
 */
public final class Modernize {
  /** The libraries rewritten: those the CLI loads to start and to run a workflow. */
  private static final java.util.List<String> PREFIXES = java.util.List.of("org/luaj/", "picocli/", "jinjava/");
  private static final int JAVA_6 = 50;
  private static final int JAVA_8 = 52;

  private Modernize() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: java Modernize.java JAR");
      System.exit(2);
    }
    Path jar = Path.of(args[0]);
    Path tmp = jar.resolveSibling(jar.getFileName() + ".modernize.tmp");
    int rewritten = 0;
    int kept = 0;
    try (URLClassLoader classes = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
      ClassFile cf = ClassFile.of(ClassFile.StackMapsOption.GENERATE_STACK_MAPS,
          ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.defaultResolver()
              .orElse(ClassHierarchyResolver.ofResourceParsing(classes))));
      ClassTransform toJava8 = ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
          .andThen((builder, element) -> {
            if (element instanceof ClassFileVersion) {
              builder.withVersion(JAVA_8, 0);
            } else {
              builder.with(element);
            }
          });
      try (InputStream in = Files.newInputStream(jar);
          ZipInputStream zin = new ZipInputStream(in);
          OutputStream out = Files.newOutputStream(tmp);
          ZipOutputStream zout = new ZipOutputStream(out)) {
        for (ZipEntry e; (e = zin.getNextEntry()) != null; ) {
          byte[] bytes = zin.readAllBytes();
          String name = e.getName();
          if (name.endsWith(".class") && PREFIXES.stream().anyMatch(name::startsWith) && bytes.length > 8
              && major(bytes) < JAVA_6) {
            byte[] modern = null;
            try {
              modern = cf.transformClass(cf.parse(bytes), toJava8);
              if (!cf.verify(modern).isEmpty()) {
                modern = null; // what the JVM's verifier would refuse is never written
              }
            } catch (RuntimeException unresolvable) {
              modern = null;
            }
            if (modern == null) {
              kept++;
            } else {
              bytes = modern;
              rewritten++;
            }
          }
          ZipEntry copy = new ZipEntry(name);
          copy.setTime(e.getTime());
          zout.putNextEntry(copy);
          zout.write(bytes);
          zout.closeEntry();
        }
      }
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw e;
    }
    Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    System.out.println("loopflow: rewrote " + rewritten + " class files older than Java 6 as Java 8 class files"
        + (kept == 0 ? "" : "; kept " + kept + " that could not be rewritten"));
  }

  private static int major(byte[] b) {
    return ((b[6] & 0xff) << 8) | (b[7] & 0xff);
  }
}
