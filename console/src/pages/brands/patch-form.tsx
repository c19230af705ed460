import { useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { toast } from 'sonner';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { Button } from '@/components/ui/button';
import { Field, Input, Textarea } from '@/components/ui/input';
import type { ApiCall } from '@/lib/api-call';

/** One field of a PATCH form: what the API calls it, what a person reads, and how it is typed in. */
export interface PatchField {
  name: string;
  label: string;
  kind: 'integer' | 'boolean' | 'text' | 'longtext' | 'email' | 'url' | 'country' | 'amount';
  /** What the number counts ("jobs per UTC day"), shown beside it. */
  unit?: string;
  hint?: ReactNode;
  /** Highest value the contract admits (integers and amounts). */
  max?: number;
  /** The field may be cleared (the API takes null). */
  nullable?: boolean;
}

type Values = Record<string, unknown>;

const asText = (v: unknown) => (v === null || v === undefined ? '' : String(v));

/** The value typed into a field as the API takes it, or an error in words. */
function parse(field: PatchField, text: string): { value?: unknown; error?: string } {
  const t = text.trim();
  if (field.kind === 'boolean') return { value: text === 'true' };
  if (t === '') return field.nullable ? { value: null } : { error: `${field.label}: give a value` };
  switch (field.kind) {
    case 'integer': {
      if (!/^\d+$/.test(t)) return { error: `${field.label}: a whole number, 0 or more` };
      const n = Number(t);
      if (field.max !== undefined && n > field.max) return { error: `${field.label}: at most ${field.max}` };
      return { value: n };
    }
    case 'amount': {
      const n = Number(t);
      if (!Number.isFinite(n) || n < 0) return { error: `${field.label}: an amount, 0 or more` };
      if (field.max !== undefined && n > field.max) return { error: `${field.label}: at most ${field.max}` };
      return { value: n };
    }
    case 'email':
      return /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(t)
        ? { value: t }
        : { error: `${field.label}: an e-mail address` };
    case 'url':
      return /^https?:\/\/\S+$/.test(t)
        ? { value: t }
        : { error: `${field.label}: an address starting http:// or https://` };
    case 'country':
      return /^[a-z]{2}$/i.test(t)
        ? { value: t.toUpperCase() }
        : { error: `${field.label}: a two-letter country code` };
    default:
      return { value: t };
  }
}

/**
 * A form over some fields of a record that sends only what changed (a PATCH), shows its API call and reports the
 * API's refusal in words. `current` is the record as the API answered it; `save` makes the call.
 */
export function PatchForm({
  id,
  fields,
  current,
  save,
  call,
  disabled,
  submitLabel = 'Save',
}: {
  id: string;
  fields: PatchField[];
  current: Values;
  save: (patch: Values) => Promise<unknown>;
  call: (patch: Values) => ApiCall;
  disabled?: boolean;
  submitLabel?: string;
}) {
  const initial = useMemo(
    () => Object.fromEntries(fields.map((f) => [f.name, asText(current[f.name])])),
    [fields, current],
  );
  const [text, setText] = useState<Record<string, string>>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);

  const patch: Values = {};
  for (const f of fields) {
    if (text[f.name] === initial[f.name]) continue;
    const parsed = parse(f, text[f.name] ?? '');
    if (!parsed.error) patch[f.name] = parsed.value;
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    for (const f of fields) {
      if (text[f.name] === initial[f.name]) continue;
      const parsed = parse(f, text[f.name] ?? '');
      if (parsed.error) found[f.name] = parsed.error;
    }
    setErrors(found);
    if (Object.keys(found).length) return;
    if (!Object.keys(patch).length) return void toast.info('Nothing changed');
    setSaving(true);
    try {
      await save(patch);
      toast.success('Saved');
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate className="flex flex-col gap-4" aria-labelledby={`${id}-heading`}>
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        {fields.map((f) => {
          const fid = `${id}-${f.name}`;
          const value = text[f.name] ?? '';
          const set = (v: string) => setText((t) => ({ ...t, [f.name]: v }));
          const described = [f.hint || f.unit ? `${fid}-hint` : '', errors[f.name] ? `${fid}-error` : '']
            .filter(Boolean)
            .join(' ');
          if (f.kind === 'boolean')
            return (
              <div key={f.name} className="flex flex-col gap-1">
                <label className="flex items-center gap-2 text-sm font-medium" htmlFor={fid}>
                  <input
                    id={fid}
                    type="checkbox"
                    className="size-4 accent-primary"
                    checked={value === 'true'}
                    disabled={disabled}
                    aria-describedby={described || undefined}
                    onChange={(e) => set(String(e.target.checked))}
                  />
                  {f.label}
                </label>
                {f.hint && (
                  <p id={`${fid}-hint`} className="text-xs text-muted-foreground">
                    {f.hint}
                  </p>
                )}
              </div>
            );
          const hint =
            f.unit || f.hint ? (
              <>
                {f.unit && <span className="font-medium">In {f.unit}. </span>}
                {f.hint}
              </>
            ) : undefined;
          return (
            <Field
              key={f.name}
              id={fid}
              label={f.label}
              hint={hint}
              error={errors[f.name]}
              className={f.kind === 'longtext' ? 'md:col-span-2' : undefined}
            >
              {f.kind === 'longtext' ? (
                <Textarea
                  id={fid}
                  value={value}
                  disabled={disabled}
                  aria-invalid={Boolean(errors[f.name])}
                  aria-describedby={described || undefined}
                  onChange={(e) => set(e.target.value)}
                />
              ) : (
                <Input
                  id={fid}
                  value={value}
                  disabled={disabled}
                  inputMode={f.kind === 'integer' ? 'numeric' : f.kind === 'amount' ? 'decimal' : undefined}
                  type={f.kind === 'email' ? 'email' : 'text'}
                  aria-invalid={Boolean(errors[f.name])}
                  aria-describedby={described || undefined}
                  onChange={(e) => set(e.target.value)}
                />
              )}
            </Field>
          );
        })}
      </div>
      {!disabled && (
        <div className="flex flex-wrap items-center justify-end gap-2">
          <ApiCallButton call={call(patch)} />
          <Button type="submit" disabled={saving}>
            {saving ? 'Saving…' : submitLabel}
          </Button>
        </div>
      )}
    </form>
  );
}
