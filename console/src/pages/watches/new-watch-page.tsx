import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { toast } from 'sonner';
import { api, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { PageHeader } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Field, Input, NativeSelect, Textarea } from '@/components/ui/input';
import { formatDateTime } from '@/lib/format';
import { PREVIEW_RUNS, describeInterval, inZone, nextCronRuns, nextIntervalRuns, timeZones } from './cadence';

const UNIT_SECONDS = { seconds: 1, minutes: 60, hours: 3600 } as const;
const optionalWhole = (label: string, max: number) =>
  z
    .string()
    .trim()
    .refine(
      (v) => v === '' || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= max),
      `${label}: a whole number from 1 to ${max}`,
    );

const form = z
  .object({
    name: z.string().trim().min(1, 'Name the watch').max(100, 'At most 100 characters'),
    kind: z.enum(['maps_scrape', 'research']),
    query: z.string().trim().max(200),
    country_code: z.string(),
    region_codes: z.array(z.string()),
    max_locations: optionalWhole('Most locations', 10000),
    max_results: optionalWhole('Most results', 100000),
    language: z
      .string()
      .trim()
      .refine((v) => v === '' || /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/.test(v), 'A language tag such as nl or en-GB'),
    companies: z.string(),
    cadence: z.enum(['interval', 'cron']),
    every: z.string().trim(),
    unit: z.enum(['seconds', 'minutes', 'hours']),
    cron: z.string().trim().max(100),
    time_zone: z.string(),
    webhook_url: z
      .string()
      .trim()
      .refine((v) => v === '' || URL.canParse(v), 'A full URL, https://…'),
  })
  .superRefine((v, ctx) => {
    if (v.kind === 'maps_scrape') {
      if (!v.query) ctx.addIssue({ code: 'custom', path: ['query'], message: 'What to search for' });
      if (!/^[A-Z]{2}$/.test(v.country_code))
        ctx.addIssue({ code: 'custom', path: ['country_code'], message: 'Choose a country' });
    } else if (!parseCompanies(v.companies).length) {
      ctx.addIssue({ code: 'custom', path: ['companies'], message: 'One company a line: name, domain, country' });
    }
    if (v.cadence === 'interval') {
      const seconds = Number(v.every) * UNIT_SECONDS[v.unit];
      if (!/^\d+$/.test(v.every) || seconds < 60 || seconds > 31_536_000)
        ctx.addIssue({ code: 'custom', path: ['every'], message: 'An interval from 1 minute to 365 days' });
    } else if (!nextCronRuns(v.cron, v.time_zone, new Date(), 1).ok) {
      ctx.addIssue({ code: 'custom', path: ['cron'], message: 'Enter a cron expression that runs (see below)' });
    }
  });
type Form = z.infer<typeof form>;

/** "Name, domain, country" a line; domain and country optional. */
function parseCompanies(text: string) {
  return text
    .split('\n')
    .map((line) => line.split(',').map((part) => part.trim()))
    .filter(([name]) => name)
    .map(([name, domain, country]) => ({
      name,
      ...(domain ? { domain } : {}),
      ...(country ? { country_code: country.toUpperCase() } : {}),
    }));
}

/** The createWatch body the form describes, as the contract takes it. */
function bodyOf(v: Form) {
  const cadence =
    v.cadence === 'interval'
      ? { interval_seconds: Number(v.every) * UNIT_SECONDS[v.unit] }
      : { cron: v.cron, time_zone: v.time_zone };
  const common = { name: v.name, cadence, ...(v.webhook_url ? { webhook_url: v.webhook_url } : {}) };
  if (v.kind === 'research') return { ...common, research: { companies: parseCompanies(v.companies) } };
  return {
    ...common,
    maps_scrape: {
      query: v.query,
      country_code: v.country_code,
      ...(v.region_codes.length ? { region_codes: v.region_codes } : {}),
      ...(v.max_locations ? { max_locations: Number(v.max_locations) } : {}),
      ...(v.max_results ? { max_results: Number(v.max_results) } : {}),
      ...(v.language ? { language: v.language } : {}),
    },
  };
}

/** The next runs of the cadence being typed, in the user's locale and time zone (and the cron's own zone). */
function Preview({ values }: { values: Form }) {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 30_000);
    return () => clearInterval(timer);
  }, []);
  const own = Intl.DateTimeFormat().resolvedOptions().timeZone;
  let runs: Date[] = [];
  let words = '';
  let problem = '';
  if (values.cadence === 'interval') {
    const seconds = Number(values.every) * UNIT_SECONDS[values.unit];
    if (/^\d+$/.test(values.every) && seconds >= 60) {
      runs = nextIntervalRuns(seconds, now);
      words = `Runs ${describeInterval(seconds)}, counted from 00:00 UTC.`;
    } else problem = 'Enter an interval of at least a minute.';
  } else {
    const preview = nextCronRuns(values.cron, values.time_zone, now);
    if (preview.ok) {
      runs = preview.runs;
      words = `${preview.description}, in ${values.time_zone}.`;
    } else problem = preview.error;
  }
  const zone = values.cadence === 'cron' && values.time_zone !== own ? values.time_zone : null;
  return (
    <section aria-labelledby="preview-heading" className="rounded-md border border-border bg-muted/40 p-3">
      <h3 id="preview-heading" className="mb-1 text-sm font-semibold">
        The next {PREVIEW_RUNS} runs
      </h3>
      <div aria-live="polite">
        {problem ? (
          <p className="text-sm text-destructive">{problem}</p>
        ) : (
          <>
            <p className="mb-2 text-sm" data-testid="cadence-words">
              {words}
            </p>
            <ol aria-label="Next runs preview" className="flex flex-col gap-0.5 text-sm">
              {runs.map((run) => (
                <li key={run.getTime()}>
                  <time dateTime={run.toISOString()}>{formatDateTime(run)}</time>
                  {zone && (
                    <span className="text-muted-foreground">
                      {' '}
                      ({inZone(run, zone)} {zone})
                    </span>
                  )}
                </li>
              ))}
            </ol>
            <p className="mt-2 text-xs text-muted-foreground">
              Shown in your time zone ({own}). The service refuses a cadence more frequent than its minimum (an hour by
              default).
            </p>
          </>
        )}
      </div>
    </section>
  );
}

export function NewWatchPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const zones = useMemo(() => timeZones(), []);
  const f = useForm<Form>({
    resolver: zodResolver(form),
    defaultValues: {
      name: '',
      kind: 'maps_scrape',
      query: '',
      country_code: '',
      region_codes: [],
      max_locations: '',
      max_results: '',
      language: '',
      companies: '',
      cadence: 'cron',
      every: '24',
      unit: 'hours',
      cron: '0 7 * * MON-FRI',
      time_zone: zones[0],
      webhook_url: '',
    },
  });
  const values = useWatch({ control: f.control }) as Form;
  const { errors } = f.formState;
  const described = (name: string, hint = false) => ({
    'aria-invalid': Boolean(errors[name as keyof Form]),
    'aria-describedby': `${name}-error${hint ? ` ${name}-hint` : ''}`,
  });

  const countries = useQuery({
    queryKey: ['locations', 'countries'],
    queryFn: () => unwrap(api.GET('/api/v1/dashboard/client/locations/countries')),
    staleTime: Infinity,
    enabled: values.kind === 'maps_scrape',
  });
  const regions = useQuery({
    queryKey: ['locations', 'regions', values.country_code],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/dashboard/client/locations/regions', {
          params: { query: { country_code: values.country_code } },
        }),
      ),
    staleTime: Infinity,
    enabled: values.kind === 'maps_scrape' && /^[A-Z]{2}$/.test(values.country_code ?? ''),
  });

  const create = useMutation({
    mutationFn: (v: Form) => unwrap(api.POST('/api/v1/dashboard/client/watches', { body: bodyOf(v) })),
    onSuccess: async (watch) => {
      toast.success(`Created “${watch.name}”`);
      await queryClient.invalidateQueries({ queryKey: ['watches'] });
      queryClient.setQueryData(['watches', 'detail', watch.watch_id], watch);
      await navigate({ to: '/watches/$watchId', params: { watchId: watch.watch_id } });
    },
    onError: (error) => toast.error(describeError(error)),
  });

  const submit = f.handleSubmit((v) => create.mutate(v));
  return (
    <>
      <Link to="/watches" className="mb-2 inline-block text-sm text-muted-foreground hover:text-foreground">
        ← Watches
      </Link>
      <PageHeader
        title="New watch"
        description="A maps scrape or a research job run on a cadence; each run tells you the leads it saw first."
      />
      <form onSubmit={submit} noValidate className="grid max-w-3xl gap-4">
        <Card className="grid gap-3">
          <h2 className="text-lg font-semibold">What it runs</h2>
          <Field id="name" label="Name" error={errors.name?.message}>
            <Input id="name" {...described('name')} {...f.register('name')} />
          </Field>
          <fieldset className="flex flex-col gap-1">
            <legend className="text-sm font-medium">Job</legend>
            <div className="flex flex-wrap gap-4 text-sm">
              <label className="flex items-center gap-2">
                <input type="radio" value="maps_scrape" {...f.register('kind')} /> Maps scrape
              </label>
              <label className="flex items-center gap-2">
                <input type="radio" value="research" {...f.register('kind')} /> Research
              </label>
            </div>
          </fieldset>
          {values.kind === 'maps_scrape' ? (
            <div className="grid gap-3 sm:grid-cols-2">
              <Field id="query" label="Search for" error={errors.query?.message}>
                <Input id="query" placeholder="bakery" {...described('query')} {...f.register('query')} />
              </Field>
              <Field id="country_code" label="Country" error={errors.country_code?.message}>
                <NativeSelect
                  id="country_code"
                  {...described('country_code')}
                  {...f.register('country_code', { onChange: () => f.setValue('region_codes', []) })}
                >
                  <option value="">{countries.isLoading ? 'Loading…' : 'Choose a country'}</option>
                  {countries.data?.countries.map((c) => (
                    <option key={c.code} value={c.code}>
                      {c.name} ({c.code})
                    </option>
                  ))}
                </NativeSelect>
              </Field>
              <Field
                id="region_codes"
                label="Regions"
                hint="None chosen: the whole country. Ctrl/Cmd-click to choose several."
              >
                <NativeSelect
                  id="region_codes"
                  multiple
                  className="h-28"
                  aria-describedby="region_codes-hint"
                  disabled={!regions.data}
                  {...f.register('region_codes')}
                >
                  {regions.data?.regions.map((r) => (
                    <option key={r.code} value={r.code}>
                      {r.name}
                    </option>
                  ))}
                </NativeSelect>
              </Field>
              <div className="grid gap-3">
                <Field id="max_locations" label="Most locations" error={errors.max_locations?.message}>
                  <Input
                    id="max_locations"
                    inputMode="numeric"
                    {...described('max_locations')}
                    {...f.register('max_locations')}
                  />
                </Field>
                <Field id="max_results" label="Most results" error={errors.max_results?.message}>
                  <Input
                    id="max_results"
                    inputMode="numeric"
                    {...described('max_results')}
                    {...f.register('max_results')}
                  />
                </Field>
              </div>
              <Field id="language" label="Result language (optional)" error={errors.language?.message}>
                <Input id="language" placeholder="en" {...described('language')} {...f.register('language')} />
              </Field>
            </div>
          ) : (
            <Field
              id="companies"
              label="Companies"
              hint="One a line: name, domain, country code (domain and country optional)."
              error={errors.companies?.message}
            >
              <Textarea id="companies" rows={5} {...described('companies', true)} {...f.register('companies')} />
            </Field>
          )}
        </Card>

        <Card className="grid gap-3">
          <h2 className="text-lg font-semibold">When it runs</h2>
          <fieldset className="flex flex-col gap-1">
            <legend className="text-sm font-medium">Cadence</legend>
            <div className="flex flex-wrap gap-4 text-sm">
              <label className="flex items-center gap-2">
                <input type="radio" value="cron" {...f.register('cadence')} /> A cron expression
              </label>
              <label className="flex items-center gap-2">
                <input type="radio" value="interval" {...f.register('cadence')} /> An interval
              </label>
            </div>
          </fieldset>
          {values.cadence === 'interval' ? (
            <div className="flex flex-wrap items-start gap-3">
              <Field id="every" label="Every" error={errors.every?.message}>
                <Input
                  id="every"
                  inputMode="numeric"
                  className="w-32"
                  {...described('every')}
                  {...f.register('every')}
                />
              </Field>
              <Field id="unit" label="Unit">
                <NativeSelect id="unit" className="w-36" {...f.register('unit')}>
                  <option value="seconds">seconds</option>
                  <option value="minutes">minutes</option>
                  <option value="hours">hours</option>
                </NativeSelect>
              </Field>
            </div>
          ) : (
            <div className="grid gap-3 sm:grid-cols-2">
              <Field
                id="cron"
                label="Cron expression"
                hint="minute hour day-of-month month day-of-week, e.g. 0 7 * * MON-FRI"
                error={errors.cron?.message}
              >
                <Input id="cron" className="font-mono" {...described('cron', true)} {...f.register('cron')} />
              </Field>
              <Field id="time_zone" label="Time zone">
                <NativeSelect id="time_zone" {...f.register('time_zone')}>
                  {zones.map((z) => (
                    <option key={z} value={z}>
                      {z}
                    </option>
                  ))}
                </NativeSelect>
              </Field>
            </div>
          )}
          <Preview values={values} />
          <Field id="webhook_url" label="Webhook URL (optional)" error={errors.webhook_url?.message}>
            <Input
              id="webhook_url"
              type="url"
              placeholder="https://example.com/hooks/watch"
              {...described('webhook_url')}
              {...f.register('webhook_url')}
            />
          </Field>
        </Card>
        <div className="flex flex-wrap items-center gap-2">
          <Button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create the watch'}
          </Button>
          <ApiCallButton
            call={{
              operationId: 'createWatch',
              method: 'POST',
              path: '/api/v1/dashboard/client/watches',
              body: bodyOf(values),
            }}
          />
        </div>
      </form>
    </>
  );
}
