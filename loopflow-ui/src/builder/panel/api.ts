// The server calls the builder's panel and YAML pane are made from; each returns what the server answered or throws
// the client's ApiError (with the server's code and message).
import { api, enc } from '../../api/client';
import type { NodeKindCatalog, TemplateSource, TemplateSummary } from '../contract';

/** GET /api/node-kinds: every node kind's fields, as the loader reads them. */
export function loadCatalog(signal?: AbortSignal): Promise<NodeKindCatalog> {
  return api.get<NodeKindCatalog>('/api/node-kinds', signal);
}

/** GET /api/schema: the workflow JSON Schema, for the YAML pane's completion. */
export function loadSchema(signal?: AbortSignal): Promise<object> {
  return api.get<object>('/api/schema', signal);
}

/** GET /api/templates: the bundled templates, without their YAML. */
export function loadTemplates(signal?: AbortSignal): Promise<TemplateSummary[]> {
  return api.get<TemplateSummary[]>('/api/templates', signal);
}

/** GET /api/templates/{id}: one template with its YAML. */
export function loadTemplate(id: string, signal?: AbortSignal): Promise<TemplateSource> {
  return api.get<TemplateSource>(`/api/templates/${enc(id)}`, signal);
}
