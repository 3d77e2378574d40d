package dev.loopflow.server.internal;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.error.ErrorCode;
import dev.loopflow.core.error.WorkflowInvalidException;
import dev.loopflow.core.graph.WorkflowGraph;
import dev.loopflow.core.model.Workflow;
import io.javalin.http.Context;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/** {@code /api/validate} and {@code /api/workflows}: checking workflow sources and the workflow files. */
final class WorkflowRoutes {
  private final Loopflow engine;
  private final WorkflowFiles files;
  /** The schema's JSON text, made on first use. */
  private volatile String schema;
  /**
   * Each listed file as last loaded, with the attributes it had just before: a listing loads only the files whose
   * modification time, size or identity changed since (a listing used to load every file on every call).
   */
  private final Map<Path, Listed> listed = new ConcurrentHashMap<>();

  /** A file's modification time, size and file key (the inode: a file replaced by a move has a new one). */
  private record Stamp(FileTime modified, long size, Object key) {
    static Stamp of(Path f) throws IOException {
      var a = Files.readAttributes(f, BasicFileAttributes.class);
      return new Stamp(a.lastModifiedTime(), a.size(), a.fileKey());
    }
  }

  private record Listed(Stamp stamp, Checked checked) {}

  WorkflowRoutes(Loopflow engine, WorkflowFiles files) {
    this.engine = engine;
    this.files = files;
  }

  /**
   * {@code GET /api/schema} → the JSON Schema of the workflow format for the node kinds this server knows (the
   * built-in kinds and those of the modules on its class path), the same document the repository publishes for
   * editors when the modules are the same. Built once, on first use.
   */
  void schema(Context ctx) {
    String s = schema;
    if (s == null) {
      s = HttpApi.json(engine.workflowSchema());
      schema = s;
    }
    ctx.status(200).contentType("application/schema+json").result(s);
  }

  /** {@code POST /api/validate {"source"}} → {@code {"valid", "problems"}}, whatever the source holds. */
  void validate(Context ctx) {
    String source = JsonBody.parse(ctx.bodyAsBytes(), Set.of("source"), false).requiredString("source");
    Checked c = check(source, "workflow.yaml");
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("valid", c.workflow() != null);
    out.put("problems", c.problems());
    HttpApi.json(ctx, 200, out);
  }

  /**
   * {@code POST /api/graph {"source"}} → the graph of an unsaved workflow (what {@code loopflow graph --format json}
   * prints); 400 {@code workflow_invalid} with every problem when it does not load.
   */
  void graph(Context ctx) {
    String source = JsonBody.parse(ctx.bodyAsBytes(), Set.of("source"), false).requiredString("source");
    Workflow wf = engine.parse(source, "workflow.yaml");
    HttpApi.json(ctx, 200, Loopflow.graph(wf).toJson());
  }

  /** {@code GET /api/workflows} → every workflow file, with what a start form needs. */
  void list(Context ctx) throws IOException {
    List<Map<String, Object>> out = new ArrayList<>();
    List<WorkflowFiles.Entry> entries = files.list();
    listed.keySet().retainAll(entries.stream().map(WorkflowFiles.Entry::file).collect(
        Collectors.toSet()));
    for (WorkflowFiles.Entry e : entries) {
      Checked c = loadListed(e.file());
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", e.name());
      m.put("file", e.file().getFileName().toString());
      m.put("description", c.workflow() == null ? null : c.workflow().description());
      m.put("valid", c.workflow() != null);
      m.put("inputs", c.workflow() == null ? List.of() : Views.inputs(c.workflow()));
      out.add(m);
    }
    HttpApi.json(ctx, 200, out);
  }

  /**
   * {@code GET /api/workflows/{name}} → {@code {"name", "source", "valid", "problems", "inputs"}}, or the file's YAML
   * as it is when the request accepts YAML.
   */
  void get(Context ctx) throws IOException {
    String name = WorkflowFiles.checkName(ctx.pathParam("name"), "name");
    Path file = files.find(name).orElseThrow(() -> notFound(name));
    String source;
    try {
      source = WorkflowFiles.read(file);
    } catch (IOException e) {
      throw ApiError.withExtra(ErrorTable.of(ErrorCode.WORKFLOW_INVALID), "workflow '" + name
          + "' cannot be read: " + WorkflowFiles.why(e), Map.of("problems", List.of(problem(WorkflowFiles.why(e)))));
    }
    String accept = ctx.header("Accept");
    if (accept != null && accept.toLowerCase(Locale.ROOT).contains("yaml")) {
      ctx.status(200).contentType("application/yaml; charset=utf-8").result(source);
      return;
    }
    Checked c = check(source, file.toString());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", name);
    out.put("source", source);
    out.put("valid", c.workflow() != null);
    out.put("problems", c.problems());
    out.put("inputs", c.workflow() == null ? List.of() : Views.inputs(c.workflow()));
    HttpApi.json(ctx, 200, out);
  }

  /**
   * {@code PUT /api/workflows/{name}} with {@code {"source"}} (or the YAML itself with a YAML content type): writes the
   * file when the source is valid, never otherwise. 201 when the file is new, 200 when it replaced one.
   */
  void put(Context ctx) throws IOException {
    String name = WorkflowFiles.checkName(ctx.pathParam("name"), "name");
    String type = ctx.contentType() == null ? "" : ctx.contentType().toLowerCase(Locale.ROOT);
    String source;
    if (type.contains("yaml")) {
      source = ctx.body();
    } else if (type.isEmpty() || type.startsWith("application/json")) {
      source = JsonBody.parse(ctx.bodyAsBytes(), Set.of("source"), false).requiredString("source");
    } else {
      throw ApiError.of(ErrorTable.Kind.UNSUPPORTED_MEDIA_TYPE, "a workflow is sent as JSON {\"source\": YAML} or "
          + "as YAML (Content-Type application/yaml), not as " + JsonBody.printable(type));
    }
    Checked c = check(source, name + ".yaml");
    if (c.workflow() == null) {
      throw ApiError.withExtra(ErrorTable.of(ErrorCode.WORKFLOW_INVALID), "the workflow is "
          + "invalid: " + c.problems().size() + (c.problems().size() == 1 ? " problem" : " problems")
          + "; nothing was written", Map.of("problems", c.problems()));
    }
    boolean existed = files.find(name).isPresent();
    Path written;
    try {
      written = files.write(name, source);
    } catch (IOException e) {
      throw ApiError.of(ErrorTable.Kind.CONFLICT, "workflow '" + name + "' cannot be written: "
          + WorkflowFiles.why(e));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", name);
    out.put("file", written.getFileName().toString());
    out.put("valid", true);
    out.put("problems", List.of());
    out.put("inputs", Views.inputs(c.workflow()));
    HttpApi.json(ctx, existed ? 200 : 201, out);
  }

  /** The workflow file {@code name} (checked), loaded; 404 when there is no such file. */
  Workflow loadNamed(String name) throws IOException {
    Path file = files.find(name).orElseThrow(() -> notFound(name));
    return engine.load(file);
  }

  static ApiError notFound(String name) {
    return ApiError.of(ErrorTable.Kind.WORKFLOW_NOT_FOUND, "no workflow '" + name + "' in the workflows directory");
  }

  /** A source checked by the loader: the workflow, or null and every problem. */
  private record Checked(Workflow workflow, List<Map<String, Object>> problems) {}

  private Checked check(String source, String fileName) {
    try {
      return new Checked(engine.parse(source, fileName), List.of());
    } catch (WorkflowInvalidException e) {
      return new Checked(null, ApiError.problems(e.problems()));
    }
  }

  /**
   * The file, loaded, or as loaded before when it has not changed. The attributes are read before the file is, so
   * a change made while it is read leaves attributes that differ from the ones kept, and is loaded next time.
   */
  private Checked loadListed(Path file) {
    Stamp stamp;
    try {
      stamp = Stamp.of(file);
    } catch (IOException e) {
      listed.remove(file);
      return load(file);
    }
    Listed before = listed.get(file);
    if (before != null && before.stamp().equals(stamp)) {
      return before.checked();
    }
    Checked c = load(file);
    listed.put(file, new Listed(stamp, c));
    return c;
  }

  private Checked load(Path file) {
    try {
      return new Checked(engine.load(file), List.of());
    } catch (WorkflowInvalidException e) {
      return new Checked(null, ApiError.problems(e.problems()));
    }
  }

  private static Map<String, Object> problem(String message) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("line", 1);
    m.put("col", 1);
    m.put("path", "");
    m.put("message", message);
    return m;
  }
}
