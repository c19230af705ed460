import { z } from 'zod';
import type { UseFormReturn } from 'react-hook-form';
import { Field, Input } from '@/components/ui/input';
import { formatNumber } from '@/lib/format';
import type { components } from '@contract';

export type LimitValues = components['schemas']['AgentLimitValues'];

/** A limit as text in a field: empty is no limit (the contract's null). */
const limitText = (max: number, integer: boolean, min: number) =>
  z
    .string()
    .trim()
    .refine(
      (v) => v === '' || ((integer ? /^\d+$/ : /^\d+(\.\d{1,6})?$/).test(v) && Number(v) >= min && Number(v) <= max),
      integer
        ? `A whole number from ${min} to ${formatNumber(max)}, or empty for no limit`
        : `A number from ${min} to ${formatNumber(max)}, or empty for no budget`,
    );

/** The bounds of AgentLimitsChange (openapi.yaml). */
export const limitsForm = z.object({
  rate_limit_rpm: limitText(1_000_000, true, 1),
  rate_limit_rpd: limitText(100_000_000, true, 1),
  monthly_budget_usd: limitText(1_000_000, false, 0),
});
export type LimitsForm = z.infer<typeof limitsForm>;

export const formOfLimits = (l: LimitValues): LimitsForm => ({
  rate_limit_rpm: l.rate_limit_rpm === null ? '' : String(l.rate_limit_rpm),
  rate_limit_rpd: l.rate_limit_rpd === null ? '' : String(l.rate_limit_rpd),
  monthly_budget_usd: l.monthly_budget_usd === null ? '' : String(l.monthly_budget_usd),
});

/** The fields as the contract's limits: every field sent, an empty one as null (no limit). */
export const limitsOfForm = (v: Partial<LimitsForm>): LimitValues => {
  const value = (text: string | undefined) => (text?.trim() ? Number(text.trim()) : null);
  return {
    rate_limit_rpm: value(v.rate_limit_rpm),
    rate_limit_rpd: value(v.rate_limit_rpd),
    monthly_budget_usd: value(v.monthly_budget_usd),
  };
};

/** Limits as a person reads them: "2 requests per minute, no limit per day, no monthly budget". */
export function limitsInWords(l: LimitValues): string {
  return [
    l.rate_limit_rpm === null ? 'no limit per minute' : `${formatNumber(l.rate_limit_rpm)} requests per minute`,
    l.rate_limit_rpd === null ? 'no limit per day' : `${formatNumber(l.rate_limit_rpd)} requests per day`,
    l.monthly_budget_usd === null
      ? 'no monthly budget'
      : `a monthly budget of USD ${formatNumber(l.monthly_budget_usd)}`,
  ].join(', ');
}

const FIELDS = [
  { name: 'rate_limit_rpm', label: 'Requests per minute', unit: 'per minute' },
  { name: 'rate_limit_rpd', label: 'Requests per day', unit: 'per day' },
  { name: 'monthly_budget_usd', label: 'Monthly budget (USD)', unit: 'USD a month' },
] as const;

/**
 * The three limit fields of a form (empty: no limit), each with a hint: where the value offered comes from (what the
 * agent asked for, the brands' default) or what it is now.
 */
export function LimitsFields({
  form,
  idPrefix,
  hints,
}: {
  form: UseFormReturn<LimitsForm>;
  idPrefix: string;
  hints?: Partial<Record<keyof LimitsForm, string>>;
}) {
  const { errors } = form.formState;
  return (
    <fieldset className="grid gap-3 sm:grid-cols-3">
      <legend className="mb-2 text-sm font-medium">Limits (empty: no limit)</legend>
      {FIELDS.map(({ name, label }) => {
        const id = `${idPrefix}-${name}`;
        const hint = hints?.[name];
        return (
          <Field key={name} id={id} label={label} hint={hint} error={errors[name]?.message}>
            <Input
              id={id}
              inputMode={name === 'monthly_budget_usd' ? 'decimal' : 'numeric'}
              aria-invalid={Boolean(errors[name])}
              aria-describedby={[hint ? `${id}-hint` : '', `${id}-error`].filter(Boolean).join(' ')}
              {...form.register(name)}
            />
          </Field>
        );
      })}
    </fieldset>
  );
}

/** What each field was offered from, for the approver: the agent's asking and the brands' default. */
export function offerHints(offer: components['schemas']['LimitOffer']): Record<keyof LimitsForm, string> {
  const asked = (n: number | null, unit: string) => (n === null ? 'nothing asked' : `asked ${formatNumber(n)} ${unit}`);
  return {
    rate_limit_rpm:
      asked(offer.requested.rate_limit_rpm, 'per minute') +
      (offer.brand_default_rpm === null ? '' : `; brand default ${formatNumber(offer.brand_default_rpm)}`),
    rate_limit_rpd: asked(offer.requested.rate_limit_rpd, 'per day'),
    monthly_budget_usd: asked(offer.requested.monthly_budget_usd, 'USD'),
  };
}
