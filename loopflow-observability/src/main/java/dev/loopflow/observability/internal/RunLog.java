package dev.loopflow.observability.internal;

import dev.loopflow.core.event.Event;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * One structured log line per run state change (started, resumed, paused, finished) and per node failure, with the
 * run id and the trace id as key-value pairs (logger {@value #LOGGER}). Values written from workflow files or model
 * replies (names, error messages) have their control characters replaced, so a value can never forge a line.
 */
final class RunLog {
  static final String LOGGER = "dev.loopflow.run";
  private static final Logger LOG = LoggerFactory.getLogger(LOGGER);
  private static final int MAX_VALUE = 500;

  private final String traceId;

  RunLog(String traceId) {
    this.traceId = traceId;
  }

  void on(Event e) {
    switch (e) {
      case Event.RunStarted s -> line(LOG.atInfo(), e).addKeyValue("workflow", clean(s.workflow())).log("run started");
      case Event.RunResumed r -> line(LOG.atInfo(), e).addKeyValue("workflow", clean(r.workflow()))
          .addKeyValue("from", r.from()).log("run resumed");
      case Event.RunPaused p -> line(LOG.atInfo(), e)
          .addKeyValue("node", clean(p.node() == null ? "" : p.node().path())).log("run paused");
      case Event.RunFinished f -> {
        LoggingEventBuilder b = line("completed".equals(f.status()) ? LOG.atInfo() : LOG.atWarn(), e)
            .addKeyValue("status", f.status());
        if (f.errorCode() != null) {
          b = b.addKeyValue("error_code", f.errorCode()).addKeyValue("message", clean(f.message()));
        }
        b.log("run finished");
      }
      case Event.NodeFailed f -> line(LOG.atWarn(), e).addKeyValue("node", clean(f.node().path()))
          .addKeyValue("kind", f.kind()).addKeyValue("error_code", f.errorCode())
          .addKeyValue("message", clean(f.message())).log("node failed");
      default -> {
      }
    }
  }

  private LoggingEventBuilder line(LoggingEventBuilder b, Event e) {
    b = b.addKeyValue("run_id", clean(e.runId()));
    return traceId == null ? b : b.addKeyValue("trace_id", traceId);
  }

  /** {@code s} on one line and at most {@value #MAX_VALUE} characters; empty for null. */
  static String clean(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder sb = new StringBuilder(Math.min(s.length(), MAX_VALUE));
    for (int i = 0; i < s.length() && sb.length() < MAX_VALUE; i++) {
      char c = s.charAt(i);
      sb.append(Character.isISOControl(c) || c == '\u2028' || c == '\u2029' ? ' ' : c);
    }
    return sb.toString();
  }
}
