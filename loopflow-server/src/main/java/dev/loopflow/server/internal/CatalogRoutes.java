package dev.loopflow.server.internal;

import dev.loopflow.core.Loopflow;
import dev.loopflow.core.schema.FieldSpec;
import dev.loopflow.core.schema.NodeKindSpec;
import dev.loopflow.core.schema.WorkflowSchema;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /api/node-kinds} and {@code /api/templates}: what the workflow builder is made from. The node kinds are
 * written from the loader's own field tables ({@link WorkflowSchema}) for this server's handlers, the same tables
 * loading checks files against and the JSON Schema is written from, so the builder's forms cannot offer a field the
 * loader refuses.
 */
final class CatalogRoutes {
  private final Loopflow engine;
  /** The catalog's JSON text, made on first use (the handlers do not change while the server runs). */
  private volatile String catalog;

  CatalogRoutes(Loopflow engine) {
    this.engine = engine;
  }

  /**
   * {@code GET /api/node-kinds} → {@code {"common", "kinds", "results"...}}: the fields every node takes, each kind
   * with its own fields and result fields, and the names a template and a node id are checked against.
   */
  void nodeKinds(Context ctx) {
    String c = catalog;
    if (c == null) {
      c = HttpApi.json(catalog(engine));
      catalog = c;
    }
    ctx.status(200).contentType("application/json").result(c);
  }

  /** {@code GET /api/templates} → {@code [{"id", "name", "description", "form"}]}, in the order they are offered. */
  void templates(Context ctx) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Templates.Template t : Templates.ALL) {
      out.add(summary(t));
    }
    HttpApi.json(ctx, 200, out);
  }

  /** {@code GET /api/templates/{id}} → {@code {"id", "name", "description", "form", "source"}}; 404 when unknown. */
  void template(Context ctx) {
    String id = ctx.pathParam("id");
    Templates.Template t = Templates.find(id).orElseThrow(() -> ApiError.of(ErrorTable.Kind.TEMPLATE_NOT_FOUND,
        "no template '" + JsonBody.printable(id) + "'; the templates are " + String.join(", ", Templates.ids())));
    Map<String, Object> out = summary(t);
    out.put("source", Templates.source(t));
    HttpApi.json(ctx, 200, out);
  }

  private static Map<String, Object> summary(Templates.Template t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", t.id());
    m.put("name", t.name());
    m.put("description", t.description());
    m.put("form", t.form());
    return m;
  }

  /** The whole catalog, as plain data. */
  static Map<String, Object> catalog(Loopflow engine) {
    Map<String, Object> out = new LinkedHashMap<>();
    WorkflowSchema schema = engine.schema();
    out.put("common", fields(schema.commonNodeFields()));
    List<Map<String, Object>> kinds = new ArrayList<>();
    for (NodeKindSpec k : schema.nodeKinds()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("kind", k.kind());
      m.put("description", text(k.description()));
      m.put("fields", fields(k.fields()));
      m.put("common", schema.commonNodeFields(k.kind()).stream().map(FieldSpec::name).toList());
      m.put("oneRequired", k.oneRequired());
      m.put("atMostOne", k.atMostOne());
      var results = schema.resultFields(k.kind());
      m.put("results", results == null ? null : List.copyOf(results));
      kinds.add(m);
    }
    out.put("kinds", kinds);
    out.put("loopVariables", List.copyOf(WorkflowSchema.loopVariableFields()));
    out.put("runVariables", List.copyOf(WorkflowSchema.runVariableFields()));
    out.put("idPattern", "^" + schema.nodeIdPattern() + "$");
    out.put("reservedIds", List.copyOf(schema.reservedNodeIds()));
    out.put("durationPattern", WorkflowSchema.durationPattern());
    out.put("typeAliases", schema.typeAliases());
    out.put("shorthands", schema.shorthands());
    return out;
  }

  private static List<Map<String, Object>> fields(List<FieldSpec> fields) {
    return fields.stream().map(CatalogRoutes::field).toList();
  }

  /** One field as {@code FieldDescription}: every key always present, absent values empty or null, never omitted. */
  static Map<String, Object> field(FieldSpec f) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", f.name());
    m.put("type", f.type().name());
    m.put("description", text(f.description()));
    m.put("required", f.required());
    m.put("aliases", f.aliases());
    m.put("values", f.values());
    m.put("minimum", f.minimum());
    m.put("maximum", f.maximum());
    m.put("fields", fields(f.fields()));
    m.put("items", f.items() == null ? null : field(f.items()));
    m.put("alternatives", fields(f.alternatives()));
    return m;
  }

  private static String text(String s) {
    return s == null ? "" : s;
  }
}
