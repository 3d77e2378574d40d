package dev.loopflow.bench.langgraph4j;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.stream.Stream;
import org.bsc.langgraph4j.CompiledGraph;
import org.bsc.langgraph4j.GraphStateException;
import org.bsc.langgraph4j.RunnableConfig;
import org.bsc.langgraph4j.StateGraph;
import org.bsc.langgraph4j.checkpoint.FileSystemSaver;

/**
 * W3: the W1 loop checkpointed after every step by LangGraph4j's {@link FileSystemSaver}, each repetition on a new
 * thread in a new subdirectory of {@code --dir}.
 *
 * <p>A {@code FileSystemSaver} is bound to one folder and a compiled graph to one saver, so a fresh subdirectory
 * per repetition means compiling per repetition. The state graph itself is built once; compiling is a validation
 * pass, done before the clock starts.
 */
final class DurableCounter implements Workload {

  private final int n;
  private final Path dir;
  private final StateGraph<CounterLoop.State> stateGraph;

  DurableCounter(int n, Path dir) throws GraphStateException {
    this.n = n;
    this.dir = dir;
    this.stateGraph = CounterLoop.graph(n);
  }

  @Override
  public Measurement run(String label) throws Exception {
    Path folder = dir.resolve(label);
    // The graph's own serializer, as the saver's javadoc intends: checkpoints hold exactly what the graph clones.
    var saver = new FileSystemSaver(folder, stateGraph.getStateSerializer());
    CompiledGraph<CounterLoop.State> graph =
        stateGraph.compile(Graphs.compileConfig(n).checkpointSaver(saver).build());
    var config = RunnableConfig.builder().threadId(label + "-" + UUID.randomUUID()).build();

    long start = System.nanoTime();
    CounterLoop.State last =
        graph.invoke(CounterLoop.input(), config).orElseThrow(() -> new IllegalStateException("no final state"));
    long wall = System.nanoTime() - start;

    Workload.check(last.count() == n, "count is %d, expected %d", last.count(), n);
    // Read back from disk: the point of W3 is that the last step is durable, not just returned.
    int durable = graph.getState(config).state().count();
    Workload.check(durable == n, "the last checkpoint on disk has count %d, expected %d", durable, n);
    long bytes = bytesUnder(folder);
    Workload.check(bytes > 0, "nothing was written under %s", folder);
    return new Measurement(wall, last.count(), bytes);
  }

  private static long bytesUnder(Path folder) throws IOException {
    try (Stream<Path> files = Files.walk(folder)) {
      return files.filter(Files::isRegularFile).mapToLong(file -> {
        try {
          return Files.size(file);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).sum();
    }
  }
}
