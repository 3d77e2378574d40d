// Starting a run: from a workflow file of the server's workflows folder, with a form generated from its declared
// inputs (fields by type, required marks, defaults), or from pasted YAML. The server's refusals are shown in words,
// with a workflow's problems as line:col.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { Play } from 'lucide-react';
import { api } from '../api/client';
import type { WorkflowInfo, WorkflowInput } from '../api/types';
import { navigate, runHref } from '../app/router';
import { valueText } from '../model/format';
import { ErrorMessage, Loading } from './common';

export type FieldValue = string | boolean;

/** The input's type: its declared type name, or its schema's `type`; `string` when neither says. */
export function inputType(input: WorkflowInput): string {
  const fromSchema = input.schema && typeof input.schema.type === 'string' ? input.schema.type : undefined;
  return (input.type ?? fromSchema ?? 'string').toLowerCase();
}

/** The allowed values of a schema `enum` of strings, numbers or booleans; undefined when there is none. */
export function inputChoices(input: WorkflowInput): (string | number | boolean)[] | undefined {
  const e = input.schema?.enum;
  if (!Array.isArray(e) || e.length === 0) return undefined;
  return e.every((v) => ['string', 'number', 'boolean'].includes(typeof v)) ? (e as (string | number | boolean)[]) : undefined;
}

/** The value a field starts with: the input's default, as the field shows it. */
export function initialValue(input: WorkflowInput): FieldValue {
  const t = inputType(input);
  if (t === 'boolean') return input.default === true;
  if (input.default === undefined || input.default === null) return '';
  if (t === 'array' || t === 'object') return JSON.stringify(input.default, null, 2);
  return valueText(input.default);
}

/** Field values → the run's inputs. Empty optional fields are left out; a bad number or JSON is an error in words. */
export function collectInputs(inputs: WorkflowInput[], values: Record<string, FieldValue>): { inputs: Record<string, unknown>; errors: Record<string, string> } {
  const out: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const i of inputs) {
    const t = inputType(i);
    const v = values[i.name];
    if (t === 'boolean') {
      out[i.name] = v === true;
      continue;
    }
    const text = typeof v === 'string' ? v : '';
    if (text.trim() === '') {
      if (i.required && (i.default === undefined || i.default === null)) errors[i.name] = `'${i.name}' is required.`;
      continue;
    }
    if (t === 'integer' || t === 'number') {
      const n = Number(text);
      if (!Number.isFinite(n) || (t === 'integer' && !Number.isInteger(n))) errors[i.name] = `'${i.name}' must be ${t === 'integer' ? 'a whole number' : 'a number'}, not “${text}”.`;
      else out[i.name] = n;
    } else if (t === 'array' || t === 'object') {
      try {
        const parsed: unknown = JSON.parse(text);
        if (t === 'array' ? !Array.isArray(parsed) : parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
          errors[i.name] = `'${i.name}' must be a JSON ${t}.`;
        } else out[i.name] = parsed;
      } catch {
        errors[i.name] = `'${i.name}' is not valid JSON.`;
      }
    } else {
      out[i.name] = text;
    }
  }
  return { inputs: out, errors };
}

export function StartRun({ onClose }: { onClose: () => void }) {
  const [mode, setMode] = useState<'file' | 'yaml'>('file');
  return (
    <section className="panel start-run" aria-labelledby="start-title" data-testid="start-run">
      <div className="panel-head">
        <h2 id="start-title">Start a run</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <div className="tabs" role="tablist" aria-label="where the workflow comes from">
        <button type="button" role="tab" aria-selected={mode === 'file'} onClick={() => setMode('file')} data-testid="start-from-file">
          From a workflow file
        </button>
        <button type="button" role="tab" aria-selected={mode === 'yaml'} onClick={() => setMode('yaml')} data-testid="start-from-yaml">
          From YAML
        </button>
      </div>
      {mode === 'file' ? <FromFile /> : <FromYaml />}
    </section>
  );
}

async function start(body: Record<string, unknown>) {
  const r = await api.post<{ run_id?: string }>('/api/runs', body);
  if (r?.run_id) navigate(runHref(r.run_id));
}

function FromFile() {
  const [workflows, setWorkflows] = useState<WorkflowInfo[]>();
  const [loadError, setLoadError] = useState<unknown>();
  const [name, setName] = useState('');
  const [values, setValues] = useState<Record<string, FieldValue>>({});
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const uid = useId();

  useEffect(() => {
    api
      .get<WorkflowInfo[]>('/api/workflows')
      .then((w) => setWorkflows(Array.isArray(w) ? w : []))
      .catch(setLoadError);
  }, []);

  const chosen = workflows?.find((w) => w.name === name);
  const inputs = chosen?.inputs ?? [];
  const choose = (n: string) => {
    setName(n);
    const w = workflows?.find((x) => x.name === n);
    setValues(Object.fromEntries((w?.inputs ?? []).map((i) => [i.name, initialValue(i)])));
    setFieldErrors({});
    setError(undefined);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const { inputs: collected, errors } = collectInputs(inputs, values);
    setFieldErrors(errors);
    if (Object.keys(errors).length) return;
    setBusy(true);
    setError(undefined);
    try {
      await start({ workflow: name, inputs: collected });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (loadError) return <ErrorMessage error={loadError} />;
  if (!workflows) return <Loading what="the workflows" />;
  if (workflows.length === 0) {
    return <p className="empty-state">The server’s workflows folder has no workflow file. Start one from YAML, or put files in the folder given to `loopflow server --workflows`.</p>;
  }
  return (
    <form onSubmit={submit} className="start-form">
      <label htmlFor={uid + 'wf'}>Workflow</label>
      <select id={uid + 'wf'} value={name} onChange={(e) => choose(e.target.value)} data-testid="start-workflow">
        <option value="">Choose a workflow…</option>
        {workflows.map((w) => (
          <option key={w.name} value={w.name} disabled={w.valid === false}>
            {w.name}
            {w.valid === false ? ' (invalid)' : ''}
          </option>
        ))}
      </select>
      {chosen?.description ? <p className="muted">{chosen.description}</p> : null}
      {chosen?.valid === false && chosen.problems?.length ? (
        <ul className="problems">
          {chosen.problems.map((p, i) => (
            <li key={i}>
              <code>{[p.line, p.col].filter((x) => x != null).join(':')}</code> {p.message ?? ''}
            </li>
          ))}
        </ul>
      ) : null}
      {chosen ? (
        inputs.length ? (
          <InputFields inputs={inputs} values={values} errors={fieldErrors} onChange={(n, v) => setValues((s) => ({ ...s, [n]: v }))} />
        ) : (
          <p className="muted">This workflow declares no input.</p>
        )
      ) : null}
      <div className="button-row">
        <button type="submit" className="primary" disabled={!chosen || busy} data-testid="start-submit">
          <Play aria-hidden="true" size={14} /> Start run
        </button>
        <span className="muted small">* required</span>
      </div>
      <ErrorMessage error={error} testId="start-error" />
    </form>
  );
}

/** The form's fields for a workflow's declared inputs (the run list's form and the builder's Run ask with it). */
export function InputFields({ inputs, values, errors, onChange }: { inputs: WorkflowInput[]; values: Record<string, FieldValue>; errors: Record<string, string>; onChange: (name: string, v: FieldValue) => void }) {
  const uid = useId();
  return (
    <fieldset>
      <legend>Inputs</legend>
      <div className="form-grid">
        {inputs.map((i) => (
          <InputField key={i.name} id={`${uid}in-${i.name}`} input={i} value={values[i.name] ?? ''} error={errors[i.name]} onChange={(v) => onChange(i.name, v)} />
        ))}
      </div>
    </fieldset>
  );
}

function InputField({ id, input, value, error, onChange }: { id: string; input: WorkflowInput; value: FieldValue; error?: string; onChange: (v: FieldValue) => void }) {
  const t = inputType(input);
  const choices = inputChoices(input);
  const secret = input.schema?.writeOnly === true;
  const required = input.required === true && (input.default === undefined || input.default === null);
  const label = (
    <label htmlFor={id}>
      {input.name}
      {required ? <span className="required" aria-hidden="true"> *</span> : null}
      <span className="muted small"> {t}</span>
    </label>
  );
  const describedBy = [input.description ? id + '-d' : '', error ? id + '-e' : ''].filter(Boolean).join(' ') || undefined;
  let field;
  if (choices && t !== 'boolean') {
    field = (
      <select
        id={id}
        value={typeof value === 'string' ? value : ''}
        required={required}
        aria-required={required}
        aria-invalid={Boolean(error)}
        aria-describedby={describedBy}
        onChange={(e) => onChange(e.target.value)}
        data-testid={`input-${input.name}`}
      >
        {!required ? <option value="">(none)</option> : null}
        {choices.map((c) => (
          <option key={String(c)} value={String(c)}>
            {String(c)}
          </option>
        ))}
      </select>
    );
  } else if (t === 'boolean') {
    field = <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} aria-describedby={describedBy} data-testid={`input-${input.name}`} />;
  } else if (t === 'integer' || t === 'number') {
    field = (
      <input
        id={id}
        type="number"
        step={t === 'integer' ? 1 : 'any'}
        value={typeof value === 'string' ? value : ''}
        required={required}
        aria-required={required}
        aria-invalid={Boolean(error)}
        aria-describedby={describedBy}
        onChange={(e) => onChange(e.target.value)}
        data-testid={`input-${input.name}`}
      />
    );
  } else if (t === 'array' || t === 'object') {
    field = (
      <textarea
        id={id}
        rows={3}
        value={typeof value === 'string' ? value : ''}
        required={required}
        aria-required={required}
        aria-invalid={Boolean(error)}
        aria-describedby={describedBy}
        placeholder={t === 'array' ? '["a", "b"]' : '{"key": "value"}'}
        onChange={(e) => onChange(e.target.value)}
        data-testid={`input-${input.name}`}
      />
    );
  } else {
    field = (
      <input
        id={id}
        type={secret ? 'password' : 'text'}
        autoComplete={secret ? 'off' : undefined}
        value={typeof value === 'string' ? value : ''}
        required={required}
        aria-required={required}
        aria-invalid={Boolean(error)}
        aria-describedby={describedBy}
        onChange={(e) => onChange(e.target.value)}
        data-testid={`input-${input.name}`}
      />
    );
  }
  return (
    <>
      {label}
      <div>
        {field}
        {input.description ? (
          <div id={id + '-d'} className="muted small">
            {input.description}
          </div>
        ) : null}
        {error ? (
          <div id={id + '-e'} className="error-text small" role="alert">
            {error}
          </div>
        ) : null}
      </div>
    </>
  );
}

function FromYaml() {
  const [source, setSource] = useState('');
  const [inputsText, setInputsText] = useState('');
  const [error, setError] = useState<unknown>();
  const [inputsError, setInputsError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    let inputs: unknown = {};
    setInputsError(undefined);
    if (inputsText.trim()) {
      try {
        inputs = JSON.parse(inputsText);
      } catch {
        setInputsError('Inputs must be a JSON object, for example {"topic": "loops"}.');
        return;
      }
      if (!inputs || typeof inputs !== 'object' || Array.isArray(inputs)) {
        setInputsError('Inputs must be a JSON object, for example {"topic": "loops"}.');
        return;
      }
    }
    setBusy(true);
    setError(undefined);
    try {
      await start({ source, inputs });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="start-form">
      <label htmlFor="yaml-source">Workflow YAML</label>
      <textarea
        id="yaml-source"
        className="code-input"
        rows={14}
        spellCheck={false}
        value={source}
        onChange={(e) => setSource(e.target.value)}
        required
        data-testid="start-yaml"
      />
      <label htmlFor="yaml-inputs">Inputs (JSON object, optional)</label>
      <textarea id="yaml-inputs" className="code-input" rows={3} value={inputsText} onChange={(e) => setInputsText(e.target.value)} data-testid="start-yaml-inputs" />
      {inputsError ? (
        <p className="error-text" role="alert">
          {inputsError}
        </p>
      ) : null}
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy || !source.trim()} data-testid="start-yaml-submit">
          <Play aria-hidden="true" size={14} /> Start run
        </button>
      </div>
      <ErrorMessage error={error} testId="start-error" />
    </form>
  );
}
