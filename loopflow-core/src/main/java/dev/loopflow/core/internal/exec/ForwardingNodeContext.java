package dev.loopflow.core.internal.exec;

import dev.loopflow.core.error.NodePosition;
import dev.loopflow.core.expr.Condition;
import dev.loopflow.core.expr.Template;
import dev.loopflow.core.spi.NodeContext;
import dev.loopflow.core.spi.SharedMemory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** A node context that forwards everything to another; engine wrappers override what they change. */
abstract class ForwardingNodeContext implements NodeContext {
  final NodeContext delegate;

  ForwardingNodeContext(NodeContext delegate) {
    this.delegate = delegate;
  }

  @Override
  public String runId() {
    return delegate.runId();
  }

  @Override
  public NodePosition position() {
    return delegate.position();
  }

  @Override
  public Map<String, Object> scope() {
    return delegate.scope();
  }

  @Override
  public String render(Template template) {
    return delegate.render(template);
  }

  @Override
  public Object evaluate(Template template) {
    return delegate.evaluate(template);
  }

  @Override
  public boolean test(Condition condition) {
    return delegate.test(condition);
  }

  @Override
  public Map<String, Object> defaults() {
    return delegate.defaults();
  }

  @Override
  public Object workflowBlock(String name) {
    return delegate.workflowBlock(name);
  }

  @Override
  public Optional<Object> option(String name) {
    return delegate.option(name);
  }

  @Override
  public Map<String, String> environment() {
    return delegate.environment();
  }

  @Override
  public Path workingDirectory() {
    return delegate.workingDirectory();
  }

  @Override
  public Duration remaining() {
    return delegate.remaining();
  }

  @Override
  public void checkCancelled() {
    delegate.checkCancelled();
  }

  @Override
  public LlmAccounting llm() {
    return delegate.llm();
  }

  @Override
  public Conversation conversation(String name) {
    return delegate.conversation(name);
  }

  @Override
  public Conversation runLog(String name) {
    return delegate.runLog(name);
  }

  @Override
  public StepLog steps() {
    return delegate.steps();
  }

  @Override
  public SharedMemory sharedMemory() {
    return delegate.sharedMemory();
  }

  @Override
  public long requestRestart(String targetStageId, String reason, Map<String, String> parameters) {
    return delegate.requestRestart(targetStageId, reason, parameters);
  }

  @Override
  public void streamed(String delta) {
    delegate.streamed(delta);
  }

  @Override
  public void streamEnded() {
    delegate.streamEnded();
  }

  @Override
  public Map<String, Object> runWorkflow(Path file, Map<String, Object> inputs) throws InterruptedException {
    return delegate.runWorkflow(file, inputs);
  }

  @Override
  public Map<String, Object> runWorkflow(Path file, Map<String, Object> inputs, int maxChildRuns)
      throws InterruptedException {
    return delegate.runWorkflow(file, inputs, maxChildRuns);
  }

  @Override
  public <T> Optional<T> service(Class<T> type) {
    return delegate.service(type);
  }
}
