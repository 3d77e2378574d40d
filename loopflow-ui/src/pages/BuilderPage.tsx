// The workflow builder at /builder (a new workflow), /builder?template=ID (a new workflow made from a bundled template)
// and /builder/{name} (a file of the server's workflows folder). A template never replaces an open file: choosing one
// goes to a new, unsaved workflow at its own address (the leave guard asks first when there are unsaved changes).
// The page owns the document (its text, with undo/redo) and everything derived from it; the palette and canvas, the
// config panel and the YAML pane show it and report edits, each of which becomes a new text. After every edit the
// text is checked by the server's loader (POST /api/validate); its problems are shown on their nodes and block Save.
import { ReactFlowProvider } from '@xyflow/react';
import { FolderOpen, LayoutGrid, Maximize, Play, Redo2, Save, Undo2 } from 'lucide-react';
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { api, ApiError, enc, requestWithStatus } from '../api/client';
import type { WorkflowInfo, WorkflowInput } from '../api/types';
import { navigate, setLeaveGuard, useLocation } from '../app/router';
import { BuilderCanvas } from '../builder/canvas/BuilderCanvas';
import { Palette } from '../builder/canvas/Palette';
import { connection, graphKey, hasUnsavedWork, idOfKey, placeProblems, reachGraph, selectedNode, siblingIds } from '../builder/builderModel';
import type { NodeKindCatalog, Problem, TemplateSummary } from '../builder/contract';
import { loadCatalog, loadSchema, loadTemplate, loadTemplates } from '../builder/panel/api';
import { paletteEntry, paletteFor } from '../builder/doc/kinds';
import { record, redo, startHistory, undo, type History } from '../builder/doc/history';
import { project, type ProjectedEdge } from '../builder/doc/project';
import { WorkflowDoc, type Edit } from '../builder/doc/workflowDoc';
import { ConfigPanel } from '../builder/panel/ConfigPanel';
import { problemText } from '../builder/panel/problems';
import { reachableValues } from '../builder/panel/reachable';
import { YamlPane } from '../builder/panel/YamlPane';
import { canvasBadges, nodeResults, runIndex } from '../builder/run/liveRun';
import { EdgePanel, LoopEdgeForm, type ChosenEdge } from '../builder/panel/EdgePanel';
import { RunStrip, useFollowedRun } from '../builder/run/RunStrip';
import { ErrorMessage, Loading } from '../components/common';
import { collectInputs, initialValue, InputFields, type FieldValue } from '../components/StartRun';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const VALIDATE_DELAY_MS = 350;

export function BuilderPage({ name }: { name?: string }) {
  const { search } = useLocation();
  const template = name ? undefined : (new URLSearchParams(search).get('template') ?? undefined);
  return (
    <ReactFlowProvider>
      <Builder key={`${name ?? ''}?${template ?? ''}`} name={name} template={template} />
    </ReactFlowProvider>
  );
}

function Builder({ name, template }: { name?: string; template?: string }) {
  const [hist, setHist] = useState<History | null>(name || template ? null : startHistory(WorkflowDoc.empty().text));
  const [saved, setSaved] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<unknown>();
  const [fileName, setFileName] = useState(name ?? template ?? '');
  /** the template a new workflow was made from, by its name, for the title */
  const [templateName, setTemplateName] = useState<string | null>(null);
  const [chosenEdge, setChosenEdge] = useState<{ list: string[]; from: string; to: string } | null>(null);
  /** an edge drawn backwards (a forward edge would close a cycle): the page asks whether a loop edge is meant */
  const [loopAsk, setLoopAsk] = useState<{ path: string[]; from: string; to: string } | null>(null);
  /** the file this builder edits: the address's, or the name a new workflow was first saved under */
  const [savedName, setSavedName] = useState<string | undefined>(name);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>();
  const [busy, setBusy] = useState<'save' | 'run' | null>(null);
  const [selectedKey, setSelectedKey] = useState<string | null>(null);
  const [layoutVersion, setLayoutVersion] = useState(0);
  const [fitVersion, setFitVersion] = useState(0);
  const [catalog, setCatalog] = useState<NodeKindCatalog | null>(null);
  const [schema, setSchema] = useState<object | null>(null);
  const [templates, setTemplates] = useState<TemplateSummary[] | null>(null);
  const [workflows, setWorkflows] = useState<WorkflowInfo[] | null>(null);
  const [checked, setChecked] = useState<{ text: string; problems: Problem[] } | null>(null);
  // a workflow that declares inputs asks for them first, with the run list's form fields and rules; the form is of
  // the saved text, so an edit closes it
  const [asking, setAsking] = useState<{ inputs: WorkflowInput[]; values: Record<string, FieldValue>; errors: Record<string, string>; text: string } | null>(null);
  /** the run started from here and the text it ran: its passes show on the canvas until the text changes */
  const [following, setFollowing] = useState<{ runId: string; text: string } | null>(null);

  // the file, or a new document
  useEffect(() => {
    if (!name) return;
    let live = true;
    api
      .get<{ source?: string }>(`/api/workflows/${enc(name)}`)
      .then((r) => {
        if (!live) return;
        const text = typeof r?.source === 'string' ? r.source : '';
        setHist(startHistory(text));
        setSaved(text);
      })
      .catch((e) => live && setLoadError(e));
    return () => {
      live = false;
    };
  }, [name]);

  // a template: a new workflow, unsaved, at its own address; Save asks for a name (the template's id is offered)
  useEffect(() => {
    if (name || !template) return;
    let live = true;
    loadTemplate(template)
      .then((t) => {
        if (!live) return;
        if (typeof t?.source !== 'string') throw new ApiError(404, 'not_found', `There is no template ${template}.`);
        setHist(startHistory(t.source));
        setTemplateName(typeof t.name === 'string' && t.name ? t.name : template);
      })
      .catch((e) => live && setLoadError(e));
    return () => {
      live = false;
    };
  }, [name, template]);

  // what the builder is made from; each may be missing on an older server, and the builder still works without it
  useEffect(() => {
    loadCatalog().then(setCatalog, () => setCatalog(null));
    loadSchema().then(setSchema, () => setSchema(null));
    loadTemplates().then((t) => setTemplates(Array.isArray(t) ? t : []), () => setTemplates([]));
    api.get<WorkflowInfo[]>('/api/workflows').then((w) => setWorkflows(Array.isArray(w) ? w : []), () => setWorkflows([]));
  }, []);

  const text = hist?.present ?? '';
  const doc = useMemo(() => new WorkflowDoc(text), [text]);
  const graph = useMemo(() => project(doc), [doc]);
  const palette = useMemo(() => paletteFor(catalog ? catalog.kinds.map((k) => k.kind) : null), [catalog]);

  // the loader's verdict on the current text, a moment after the last edit
  useEffect(() => {
    if (!hist) return;
    let live = true;
    const t = setTimeout(() => {
      api
        .post<{ valid?: boolean; problems?: Problem[] }>('/api/validate', { source: text })
        .then((r) => live && setChecked({ text, problems: Array.isArray(r?.problems) ? r.problems : [] }))
        .catch((e) => live && setChecked({ text, problems: [{ line: 0, col: 0, path: '', message: e instanceof Error ? e.message : 'the server could not check the workflow' }] }));
    }, VALIDATE_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [text, hist]);

  // an edit makes the canvas a different workflow from the one that runs: its counters would mislead
  useEffect(() => {
    if (following && following.text !== text) setFollowing(null);
    if (asking && asking.text !== text) setAsking(null);
  }, [following, asking, text]);
  const { live, graph: runGraph } = useFollowedRun(following?.runId ?? null);
  const badges = useMemo(() => (following ? canvasBadges(live, runIndex(graph, runGraph), graph) : null), [following, live, graph, runGraph]);
  const results = useMemo(() => (following ? nodeResults(live, runIndex(graph, runGraph), graph, following.runId) : undefined), [following, live, graph, runGraph]);
  // the chosen edge as the text now states it (gone once an edit removed it)
  const edgeShown = useMemo((): ChosenEdge | null => {
    if (!chosenEdge) return null;
    const e = doc.edges(chosenEdge.list).find((d) => d.source !== 'order' && d.from === chosenEdge.from && d.to === chosenEdge.to);
    return e ? { list: chosenEdge.list, from: e.from, to: e.to, loop: e.loop, max: e.max } : null;
  }, [chosenEdge, doc]);

  const problems = checked?.problems ?? [];
  const placed = useMemo(() => placeProblems(doc, problems), [doc, problems]);
  const problemMessages = useMemo(() => new Map([...placed.byKey].map(([k, ps]) => [k, ps.map(problemText)])), [placed]);
  const values = useMemo(() => {
    const m = new Map<string, Record<string, unknown>>();
    for (const n of doc.allNodes()) m.set(graphKey(n.path, n.id), doc.liftedValues(n));
    return m;
  }, [doc]);
  const selected = useMemo(() => selectedNode(doc, graph, selectedKey), [doc, graph, selectedKey]);
  const reachable = useMemo(() => (selected ? reachableValues(reachGraph(doc, graph), selected.id, catalog) : []), [doc, graph, selected, catalog]);

  const upToDate = checked?.text === text;
  const dirty = saved === null || saved !== text;
  const canSave = !!hist && doc.editable && upToDate && problems.length === 0 && NAME.test(fileName) && busy === null;

  // leaving with unsaved changes asks first: closing or reloading the tab (the browser's own question), the app's
  // links, Open… and New from template, and the browser's Back and Forward within the app (a confirm)
  const unsaved = !!hist && hasUnsavedWork(text, saved, WorkflowDoc.empty().text);
  useEffect(() => {
    if (!unsaved) return;
    const onBeforeUnload = (ev: BeforeUnloadEvent) => {
      ev.preventDefault();
      ev.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    setLeaveGuard(() => window.confirm('This workflow has unsaved changes. Leave it and lose them?'));
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      setLeaveGuard(null);
    };
  }, [unsaved]);

  const change = useCallback((next: string) => setHist((h) => (h ? record(h, next) : h)), []);
  const apply = useCallback(
    (e: Edit, select?: string | null) => {
      if (!e.ok) {
        setNotice(e.error);
        return false;
      }
      setNotice(null);
      change(e.doc.text);
      if (select !== undefined) setSelectedKey(select);
      return true;
    },
    [change],
  );

  const addNode = useCallback(
    (kind: string, list: string[], at?: number): string | null => {
      const entry = paletteEntry(kind, palette);
      const r = doc.addNode(entry.starter, entry.idBase, list, undefined, at);
      const key = r.ok && r.created ? graphKey(list, r.created) : null;
      apply(r, key ?? undefined);
      return key;
    },
    [doc, palette, apply],
  );

  /** A palette press adds to the selected loop body, or next to the selected node, or at the top level. */
  const addFromPalette = useCallback(
    (kind: string) => {
      const ref = selectedKey ? graph.docNodes.get(selectedKey) : undefined;
      const node = ref ? doc.find(ref.path, ref.id) : undefined;
      addNode(kind, node ? (node.children ? [...node.path, node.id] : node.path) : []);
    },
    [selectedKey, graph, doc, addNode],
  );

  const onConnect = useCallback(
    (fromKey: string, toKey: string) => {
      const c = connection(doc, graph, fromKey, toKey);
      setLoopAsk(null);
      if (!c) {
        setNotice('Only nodes of the same list can be connected (a body’s nodes with each other, or top-level nodes).');
        return;
      }
      if (c.cycle) {
        // a drawn edge is a forward edge, and this one would close a cycle: nothing is written unless a loop edge is
        // asked for, with its bound
        setNotice(
          c.path.length
            ? `${c.to} already leads to ${c.from}: an edge from ${c.from} to ${c.to} would close a cycle, and loop edges join top-level nodes only. Nothing was changed.`
            : `${c.to} already leads to ${c.from}: an edge drawn from ${c.from} to ${c.to} would close a cycle, so it was not added. To run ${c.to} again after ${c.from}, make it a loop edge below.`,
        );
        if (!c.path.length) setLoopAsk({ path: c.path, from: c.from, to: c.to });
        return;
      }
      apply(doc.connect(c.path, c.from, c.to));
    },
    [doc, graph, apply],
  );

  const makeLoopEdge = useCallback(
    (path: string[], from: string, to: string, max: number) => {
      // a forward edge between the two goes: the loop edge takes its place
      const without = doc.disconnect(path, from, to);
      const base = without.ok ? without.doc : doc;
      if (apply(base.connect(path, from, to, max))) {
        setLoopAsk(null);
        setChosenEdge({ list: path, from, to });
      }
    },
    [doc, apply],
  );

  const onSelectEdge = useCallback((e: ProjectedEdge | null) => {
    setLoopAsk(null);
    setChosenEdge(e && e.list ? { list: e.list, from: idOfKey(e.from), to: idOfKey(e.to) } : null);
  }, []);

  const onDeleteNode = useCallback(
    (key: string) => {
      const ref = graph.docNodes.get(key);
      if (ref) apply(doc.removeNode(ref.path, ref.id), null);
    },
    [doc, graph, apply],
  );

  const onDeleteEdge = useCallback(
    (e: ProjectedEdge) => {
      if (e.list) apply(doc.disconnect(e.list, idOfKey(e.from), idOfKey(e.to)));
    },
    [doc, apply],
  );

  const onMove = useCallback(
    (key: string, list: string[]) => {
      const ref = graph.docNodes.get(key);
      if (ref) apply(doc.moveNode(ref.path, ref.id, list), graphKey(list, ref.id));
    },
    [doc, graph, apply],
  );

  const onFieldChange = useCallback(
    (field: string, value: unknown) => {
      if (selected) apply(doc.setField(selected.path, selected.id, field, value));
    },
    [doc, selected, apply],
  );

  const onRename = useCallback(
    (newId: string) => {
      if (selected) apply(doc.renameNode(selected.path, selected.id, newId), graphKey(selected.path, newId));
    },
    [doc, selected, apply],
  );

  const doUndo = useCallback(() => setHist((h) => (h ? undo(h) : h)), []);
  const doRedo = useCallback(() => setHist((h) => (h ? redo(h) : h)), []);

  // Ctrl/Cmd+Z and Shift+Ctrl/Cmd+Z (or Ctrl+Y), except in a text field or the YAML editor, which have their own
  useEffect(() => {
    const onKey = (ev: KeyboardEvent) => {
      if (!(ev.ctrlKey || ev.metaKey) || ev.altKey) return;
      const t = ev.target as HTMLElement | null;
      // the YAML pane's editor sits in a shadow root: its keys reach here from the pane's host element
      if (t?.closest?.('input, textarea, select, [contenteditable="true"], .yaml-pane')) return;
      const k = ev.key.toLowerCase();
      if (k === 'z' && !ev.shiftKey) doUndo();
      else if ((k === 'z' && ev.shiftKey) || k === 'y') doRedo();
      else return;
      ev.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [doUndo, doRedo]);

  const [replaceAsked, setReplaceAsked] = useState<string | null>(null);
  const save = useCallback(async (): Promise<boolean> => {
    if (!canSave) return false;
    // a new workflow saved under the name of a file that exists: the first Save asks, the second replaces
    if (!savedName && replaceAsked !== fileName && (workflows ?? []).some((w) => w.name === fileName)) {
      setReplaceAsked(fileName);
      setNotice(`A workflow named ${fileName} exists already; Save again to replace it, or choose another name.`);
      return false;
    }
    // a new workflow still called by the starter's name takes the name it is saved under
    let source = text;
    if (!savedName && doc.workflowName() === WorkflowDoc.UNTITLED) {
      const named = doc.setWorkflowName(fileName);
      if (named.ok) {
        source = named.doc.text;
        change(source);
      }
    }
    setBusy('save');
    setActionError(undefined);
    try {
      const r = await requestWithStatus<{ error?: { message?: string; problems?: Problem[] } }>('PUT', `/api/workflows/${enc(fileName)}`, { source });
      if (r.status === 200 || r.status === 201) {
        setSaved(source);
        if (savedName !== fileName) {
          // the page of the saved file: the address names it, and reloading opens it
          window.history.replaceState(null, '', `/builder/${enc(fileName)}`);
          setSavedName(fileName);
        }
        setNotice(`Saved as ${fileName}.`);
        return true;
      }
      const err = r.body?.error;
      if (err?.problems?.length) setChecked({ text, problems: err.problems });
      setActionError(new ApiError(r.status, 'save_failed', err?.message ?? `The server refused to save (${r.status}).`));
      return false;
    } catch (e) {
      setActionError(e);
      return false;
    } finally {
      setBusy(null);
    }
  }, [canSave, fileName, text, doc, change, savedName, replaceAsked, workflows]);

  const start = useCallback(
    async (inputs: Record<string, unknown>) => {
      setBusy('run');
      setActionError(undefined);
      try {
        const r = await api.post<{ run_id?: string }>('/api/runs', { workflow: fileName, inputs });
        // the builder stays open and shows the run's passes on its canvas; the strip links to the run's page
        if (r?.run_id) setFollowing({ runId: r.run_id, text });
      } catch (e) {
        setActionError(e);
      } finally {
        setBusy(null);
      }
    },
    [fileName, text],
  );

  const run = useCallback(async () => {
    if (dirty && !(await save())) return;
    let declared: WorkflowInput[] = [];
    try {
      const list = await api.get<WorkflowInfo[]>('/api/workflows');
      if (Array.isArray(list)) {
        setWorkflows(list);
        declared = list.find((w) => w.name === fileName)?.inputs ?? [];
      }
    } catch {
      // without the list the run starts with no inputs, and the server says which one it needs
    }
    if (declared.length) {
      setAsking({ inputs: declared, values: Object.fromEntries(declared.map((i) => [i.name, initialValue(i)])), errors: {}, text });
      return;
    }
    await start({});
  }, [dirty, save, fileName, start, text]);

  const submitInputs = useCallback(
    (ev: FormEvent) => {
      ev.preventDefault();
      if (!asking) return;
      const { inputs, errors } = collectInputs(asking.inputs, asking.values);
      if (Object.keys(errors).length) {
        setAsking({ ...asking, errors });
        return;
      }
      setAsking(null);
      void start(inputs);
    },
    [asking, start],
  );

  // a template opens as a new workflow at its own address; the open file stays as it is (asked first when unsaved)
  const fromTemplate = useCallback((id: string) => {
    if (id) navigate(`/builder?template=${encodeURIComponent(id)}`);
  }, []);

  if (loadError) {
    return (
      <main className="page" data-testid="builder-page">
        <h1>Workflow builder</h1>
        <ErrorMessage error={loadError} testId="builder-load-error" />
      </main>
    );
  }
  if (!hist) return <Loading what={name ? `the workflow ${name}` : `the template ${template ?? ''}`} />;

  return (
    <main className="builder-page" data-testid="builder-page">
      <div className="builder-toolbar" role="toolbar" aria-label="builder">
        <h1 className="builder-title" data-testid="builder-title">
          {savedName ?? 'New workflow'}
          {!savedName && templateName ? <span className="builder-from"> from template {templateName}</span> : null}
        </h1>
        <label className="builder-open">
          <FolderOpen aria-hidden="true" size={14} />
          <span className="sr-only">Open a workflow</span>
          <select value="" onChange={(e) => e.target.value && navigate(`/builder/${enc(e.target.value)}`)} data-testid="builder-open" aria-label="open a workflow">
            <option value="">Open…</option>
            {(workflows ?? []).map((w) => (
              <option key={w.name} value={w.name}>
                {w.name}
              </option>
            ))}
          </select>
        </label>
        <select value="" onChange={(e) => fromTemplate(e.target.value)} data-testid="builder-template" aria-label="new from a template" disabled={!templates?.length}>
          <option value="">{templates === null ? 'Templates…' : templates.length ? 'New from template…' : 'No templates'}</option>
          {(templates ?? []).map((t) => (
            <option key={t.id} value={t.id} title={t.description}>
              {t.name}
            </option>
          ))}
        </select>
        <button type="button" onClick={doUndo} disabled={!hist.past.length} data-testid="builder-undo" title="Undo (Ctrl+Z)">
          <Undo2 aria-hidden="true" size={14} /> Undo
        </button>
        <button type="button" onClick={doRedo} disabled={!hist.future.length} data-testid="builder-redo" title="Redo (Shift+Ctrl+Z)">
          <Redo2 aria-hidden="true" size={14} /> Redo
        </button>
        <button type="button" onClick={() => setLayoutVersion((v) => v + 1)} data-testid="builder-layout" title="Lay the graph out again">
          <LayoutGrid aria-hidden="true" size={14} /> Layout
        </button>
        <button type="button" onClick={() => setFitVersion((v) => v + 1)} data-testid="builder-fit" title="Zoom to fit">
          <Maximize aria-hidden="true" size={14} /> Fit
        </button>
        <span className="builder-spacer" />
        {!savedName ? (
          <label className="builder-name">
            Name{' '}
            <input value={fileName} onChange={(e) => setFileName(e.target.value.trim())} placeholder="my-workflow" data-testid="builder-name" aria-invalid={!!fileName && !NAME.test(fileName)} />
          </label>
        ) : null}
        <span className="builder-state" data-testid="builder-state">
          {!upToDate ? 'checking…' : problems.length ? `${problems.length} problem${problems.length > 1 ? 's' : ''}` : 'valid'}
          {dirty ? ' · unsaved' : ' · saved'}
        </span>
        <button type="button" className="primary" onClick={() => void save()} disabled={!canSave} data-testid="builder-save" title={problems.length ? 'Fix the problems first' : 'Save to the workflows folder'}>
          <Save aria-hidden="true" size={14} /> Save
        </button>
        <button type="button" onClick={() => void run()} disabled={!canSave} data-testid="builder-run" title="Save, then run on the server">
          <Play aria-hidden="true" size={14} /> Run
        </button>
      </div>
      {notice ? (
        <p className="builder-notice" role="status" data-testid="builder-notice">
          {notice}
        </p>
      ) : null}
      {actionError ? <ErrorMessage error={actionError} testId="builder-error" /> : null}
      {loopAsk ? (
        <LoopEdgeForm from={loopAsk.from} to={loopAsk.to} onMake={(max) => makeLoopEdge(loopAsk.path, loopAsk.from, loopAsk.to, max)} onCancel={() => (setLoopAsk(null), setNotice(null))} testId="builder-loop-ask" />
      ) : null}
      {asking ? (
        <form className="builder-run-inputs start-form" onSubmit={submitInputs} data-testid="builder-run-inputs">
          <InputFields inputs={asking.inputs} values={asking.values} errors={asking.errors} onChange={(n, v) => setAsking((a) => (a ? { ...a, values: { ...a.values, [n]: v } } : a))} />
          <div className="button-row">
            <button type="submit" className="primary" disabled={busy !== null} data-testid="builder-run-start">
              <Play aria-hidden="true" size={14} /> Start run
            </button>
            <button type="button" onClick={() => setAsking(null)} data-testid="builder-run-cancel">
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      {following ? <RunStrip runId={following.runId} live={live} unplaced={badges?.unplaced ?? []} onClose={() => setFollowing(null)} /> : null}
      {!doc.editable || doc.issues.length ? (
        <ul className="builder-issues" data-testid="builder-issues">
          {doc.issues.map((i, k) => (
            <li key={k}>{i}</li>
          ))}
        </ul>
      ) : null}
      <div className="builder-main">
        <Palette entries={palette} onAdd={addFromPalette} disabled={!doc.editable} />
        <BuilderCanvas
          graph={graph}
          values={values}
          selectedKey={selectedKey}
          problems={problemMessages}
          layoutVersion={layoutVersion}
          fitVersion={fitVersion}
          onSelect={setSelectedKey}
          onAdd={addNode}
          onConnect={onConnect}
          onDeleteNode={onDeleteNode}
          onDeleteEdge={onDeleteEdge}
          onMove={onMove}
          runBadges={badges?.byKey}
          runResults={results}
          selectedEdge={edgeShown}
          onSelectEdge={onSelectEdge}
        />
        <div className="builder-side">
          {edgeShown ? (
            <EdgePanel
              key={`${edgeShown.from}>${edgeShown.to}`}
              edge={edgeShown}
              onDelete={() => {
                apply(doc.disconnect(edgeShown.list, edgeShown.from, edgeShown.to));
                setChosenEdge(null);
              }}
              onMakeLoop={(max) => makeLoopEdge(edgeShown.list, edgeShown.from, edgeShown.to, max)}
            />
          ) : (
            <ConfigPanel
              catalog={catalog}
              node={selected}
              reachable={reachable}
              problems={selected ? placed.byKey.get(graphKey(selected.path, selected.id)) ?? [] : []}
              onChange={onFieldChange}
              onRename={onRename}
              nodeIds={siblingIds(doc, selected)}
            />
          )}
          <YamlPane text={text} onChange={change} problems={problems} schema={schema} />
        </div>
      </div>
      {problems.length ? (
        <section className="builder-problems" aria-labelledby="builder-problems-title" data-testid="builder-problems">
          <h2 id="builder-problems-title">Problems</h2>
          <ul>
            {problems.map((p, i) => (
              <li key={i}>
                <code>
                  {p.line}:{p.col}
                </code>{' '}
                {p.path ? <code>{p.path}</code> : null} {p.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </main>
  );
}
