package dev.loopflow.core.scratch;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.WorkflowInvalidException;
import java.nio.file.*;
import java.util.*;
import org.junit.jupiter.api.Test;

class DumpTest {
  @Test
  void dump() throws Exception {
    Loopflow engine = Loopflow.create();
    Path dir = Path.of(System.getProperty("dumpdir", "src/test/resources/broken"));
    StringBuilder sb = new StringBuilder();
    try (var s = Files.list(dir)) {
      for (Path p : s.filter(x -> x.toString().endsWith(".yaml")).sorted().toList()) {
        sb.append("=== ").append(p.getFileName()).append('\n');
        try {
          engine.parse(Files.readString(p), dir.getFileName() + "/" + p.getFileName());
          sb.append("  (valid)\n");
        } catch (WorkflowInvalidException e) {
          e.problems().forEach(pr -> sb.append(pr.format()).append('\n'));
        } catch (Throwable t) {
          sb.append("  CRASH ").append(t).append('\n');
        }
      }
    }
    Files.writeString(Path.of("/tmp/dump.txt"), sb.toString());
  }
}
