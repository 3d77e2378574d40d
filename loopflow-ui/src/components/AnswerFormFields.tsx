// The fields of a paused step's form (see model/answerForm): one control per field, its title as the label, its
// description as help text, a required mark, and the courtesy check's problem under it. Everything is text.
import { useId } from 'react';
import type { AnswerForm, Draft, FormField } from '../model/answerForm';

interface Props {
  form: AnswerForm;
  draft: Draft;
  problems: Record<string, string>;
  onChange: (name: string, value: string | boolean) => void;
}

export function AnswerFormFields({ form, draft, problems, onChange }: Props) {
  const uid = useId();
  return (
    <fieldset className="answer-form" data-testid="answer-form">
      <legend>{form.title || 'Your answer'}</legend>
      {form.description ? <p className="muted small answer-form-description">{form.description}</p> : null}
      <div className="form-grid">
        {form.fields.map((f, i) => (
          <FieldControl
            key={f.name}
            id={`${uid}f${i}`}
            field={f}
            value={Object.prototype.hasOwnProperty.call(draft, f.name) ? (draft[f.name] ?? '') : ''}
            problem={Object.prototype.hasOwnProperty.call(problems, f.name) ? problems[f.name] : undefined}
            onChange={(v) => onChange(f.name, v)}
          />
        ))}
      </div>
      {form.omitted > 0 ? (
        <p className="muted small" data-testid="answer-form-omitted">
          {form.omitted} more field{form.omitted === 1 ? '' : 's'} of this form cannot be shown here; answer through the API or the command line.
        </p>
      ) : null}
    </fieldset>
  );
}

function FieldControl({ id, field: f, value, problem, onChange }: { id: string; field: FormField; value: string | boolean; problem?: string; onChange: (v: string | boolean) => void }) {
  const describedBy = [f.description ? id + '-d' : '', problem ? id + '-e' : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    'aria-required': f.required,
    'aria-invalid': Boolean(problem),
    'aria-describedby': describedBy,
    'data-testid': `form-field-${f.name}`,
  };
  let control;
  if (f.kind === 'boolean') {
    control = <input {...common} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
  } else if (f.kind === 'enum') {
    control = (
      <select {...common} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)}>
        <option value="">{f.required ? '(choose one)' : '(none)'}</option>
        {f.choices.map((c, i) => (
          <option key={i} value={String(i)}>
            {c.text}
          </option>
        ))}
      </select>
    );
  } else {
    const numeric = f.kind === 'integer' || f.kind === 'number';
    control = (
      <input
        {...common}
        type={numeric ? 'number' : 'text'}
        step={numeric ? (f.kind === 'integer' ? 1 : 'any') : undefined}
        value={typeof value === 'string' ? value : ''}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <>
      <label htmlFor={id} className="answer-form-label">
        {f.label}
        {f.required ? <span className="required" aria-hidden="true"> *</span> : null}
        <span className="muted small"> {f.kind === 'enum' ? 'choice' : f.kind}</span>
      </label>
      <div>
        {control}
        {f.description ? (
          <div id={id + '-d'} className="muted small answer-form-description">
            {f.description}
          </div>
        ) : null}
        {problem ? (
          <div id={id + '-e'} className="error-text small" role="alert" data-testid={`form-problem-${f.name}`}>
            {problem}
          </div>
        ) : null}
      </div>
    </>
  );
}
