import { useMemo, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Plus } from 'lucide-react';
import { toast } from 'sonner';
import { z } from 'zod';
import { api, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { ErrorState, Loading } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogTrigger } from '@/components/ui/dialog';
import { Field, Input, NativeSelect, Textarea } from '@/components/ui/input';
import type { ApiCall } from '@/lib/api-call';
import { formatDateTime, formatNumber } from '@/lib/format';
import { useIdempotencyKey } from '@/lib/idempotency-key';
import { usageQuery } from './jobs-data';

const optionalCount = (max: number) =>
  z
    .string()
    .trim()
    .refine(
      (v) => v === '' || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= max),
      `A whole number from 1 to ${max}`,
    );

const mapsForm = z.object({
  query: z.string().trim().min(1, 'Say what to search for').max(200),
  country_code: z.string().regex(/^[A-Z]{2}$/, 'Choose a country'),
  region_codes: z.array(z.string()),
  max_locations: optionalCount(10_000),
  max_results: optionalCount(100_000),
  language: z
    .string()
    .trim()
    .refine((v) => v === '' || /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/.test(v), 'A language tag such as nl or en-GB'),
});
type MapsForm = z.infer<typeof mapsForm>;

const capText = (limit: number) => (limit > 0 ? formatNumber(limit) : 'none');
const windowText = (w: { limit: number; used: number; resets_at: string }) =>
  w.limit > 0
    ? `${formatNumber(w.used)} of ${formatNumber(w.limit)} used, ${formatNumber(Math.max(0, w.limit - w.used))} left (until ${formatDateTime(w.resets_at)})`
    : `${formatNumber(w.used)} used, no bound`;

/** The job's bounds: what the client's job limits allow and what the chosen area and caps make of this job. */
function CostBounds({
  areaLocations,
  maxLocations,
  maxResults,
}: {
  areaLocations: number | null;
  maxLocations: string;
  maxResults: string;
}) {
  const usage = useQuery(usageQuery);
  if (usage.isPending) return <Loading label="Reading your job limits…" />;
  if (usage.error) return <ErrorState error={usage.error} retry={() => void usage.refetch()} />;
  const { jobs } = usage.data;
  const locCap = jobs.max_locations.limit;
  const resCap = jobs.max_results.limit;
  const askedLoc = maxLocations ? Number(maxLocations) : null;
  const locations = [askedLoc ?? (locCap > 0 ? locCap : null), areaLocations].filter((n): n is number => n !== null);
  const results = maxResults ? Number(maxResults) : resCap > 0 ? resCap : null;
  return (
    <section aria-labelledby="bounds-title" className="rounded-md border border-border bg-muted/40 p-3 text-sm">
      <h3 id="bounds-title" className="mb-1 font-medium">
        This job's bounds
      </h3>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
        <dt className="text-muted-foreground">Locations searched</dt>
        <dd data-testid="bound-locations">
          {locations.length ? `at most ${formatNumber(Math.min(...locations))}` : 'every location of the area'}
          {areaLocations !== null && ` (the area has ${formatNumber(areaLocations)})`}
        </dd>
        <dt className="text-muted-foreground">Businesses collected</dt>
        <dd data-testid="bound-results">{results ? `at most ${formatNumber(results)}` : 'no cap'}</dd>
        <dt className="text-muted-foreground">Your caps</dt>
        <dd>
          max_locations {capText(locCap)}, max_results {capText(resCap)}
        </dd>
        <dt className="text-muted-foreground">Jobs at once</dt>
        <dd>
          {jobs.unfinished.limit > 0
            ? `${formatNumber(jobs.unfinished.used)} of ${formatNumber(jobs.unfinished.limit)} running or queued`
            : `${formatNumber(jobs.unfinished.used)} running or queued, no bound`}
        </dd>
        <dt className="text-muted-foreground">Today</dt>
        <dd data-testid="bound-today">{windowText(jobs.per_day)}</dd>
        <dt className="text-muted-foreground">This month</dt>
        <dd data-testid="bound-month">{windowText(jobs.per_month)}</dd>
      </dl>
    </section>
  );
}

/** Submits a maps-scrape job: the country and regions from the locations operations, the query and the caps. */
export function SubmitMapsJob() {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button>
          <Plus aria-hidden /> Maps-scrape job
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Submit a maps-scrape job"
        description="Searches the maps platform for your query in the chosen area and stores the businesses found."
        className="max-w-2xl"
      >
        <MapsJobForm done={() => setOpen(false)} />
      </DialogContent>
    </Dialog>
  );
}

function MapsJobForm({ done }: { done: () => void }) {
  const queryClient = useQueryClient();
  const idempotency = useIdempotencyKey();
  const form = useForm<MapsForm>({
    resolver: zodResolver(mapsForm),
    defaultValues: { query: '', country_code: '', region_codes: [], max_locations: '', max_results: '', language: '' },
  });
  const { errors, isSubmitting } = form.formState;
  const values = useWatch({ control: form.control });
  const countries = useQuery({
    queryKey: ['locations', 'countries'],
    queryFn: () => unwrap(api.GET('/api/v1/dashboard/client/locations/countries')),
    staleTime: Infinity,
  });
  const country = values.country_code ?? '';
  const regions = useQuery({
    queryKey: ['locations', 'regions', country],
    queryFn: () =>
      unwrap(api.GET('/api/v1/dashboard/client/locations/regions', { params: { query: { country_code: country } } })),
    enabled: /^[A-Z]{2}$/.test(country),
    staleTime: Infinity,
  });
  const chosen = useMemo(() => values.region_codes ?? [], [values.region_codes]);
  const areaLocations = useMemo(() => {
    if (!country) return null;
    if (chosen.length && regions.data)
      return regions.data.regions.filter((r) => chosen.includes(r.code)).reduce((n, r) => n + r.location_count, 0);
    return countries.data?.countries.find((c) => c.code === country)?.location_count ?? null;
  }, [country, chosen, regions.data, countries.data]);

  const bodyOf = (v: Partial<MapsForm>) => ({
    query: (v.query ?? '').trim(),
    country_code: v.country_code ?? '',
    ...(v.region_codes?.length ? { region_codes: v.region_codes } : {}),
    ...(v.max_locations ? { max_locations: Number(v.max_locations) } : {}),
    ...(v.max_results ? { max_results: Number(v.max_results) } : {}),
    ...(v.language ? { language: v.language.trim() } : {}),
  });
  const call: ApiCall = {
    operationId: 'submitMapsScrapeJob',
    method: 'POST',
    path: '/api/v1/dashboard/client/jobs/maps-scrape/submit',
    body: bodyOf(values),
    headers: { 'Idempotency-Key': idempotency.key },
  };

  const submit = form.handleSubmit(async (v) => {
    const body = bodyOf(v);
    try {
      const job = await unwrap(
        api.POST('/api/v1/dashboard/client/jobs/maps-scrape/submit', {
          body,
          params: { header: { 'Idempotency-Key': idempotency.keyFor(body) } },
        }),
      );
      idempotency.succeeded();
      toast.success(`Job queued: ${body.query}`, { description: job.job_id });
      void queryClient.invalidateQueries({ queryKey: ['jobs'] });
      void queryClient.invalidateQueries({ queryKey: ['usage'] });
      done();
    } catch (error) {
      toast.error(describeError(error));
    }
  });

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-3">
      <Field id="maps-query" label="Search for" error={errors.query?.message}>
        <Input
          id="maps-query"
          placeholder="bakery"
          aria-invalid={Boolean(errors.query)}
          aria-describedby="maps-query-error"
          {...form.register('query')}
        />
      </Field>
      <Field id="maps-country" label="Country" error={errors.country_code?.message ?? countries.error?.message}>
        <NativeSelect
          id="maps-country"
          aria-invalid={Boolean(errors.country_code)}
          aria-describedby="maps-country-error"
          {...form.register('country_code', { onChange: () => form.setValue('region_codes', []) })}
        >
          <option value="">{countries.isPending ? 'Loading countries…' : 'Choose a country'}</option>
          {countries.data?.countries.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name} ({formatNumber(c.location_count)} locations)
            </option>
          ))}
        </NativeSelect>
      </Field>
      {country && (
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium">Regions (none chosen: the whole country)</legend>
          {regions.isPending ? (
            <Loading label="Loading regions…" />
          ) : regions.error ? (
            <ErrorState error={regions.error} retry={() => void regions.refetch()} />
          ) : (
            <div className="grid max-h-40 grid-cols-1 gap-1 overflow-y-auto rounded-md border border-border p-2 sm:grid-cols-2">
              {regions.data.regions.map((r) => (
                <label key={r.code} className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    value={r.code}
                    className="size-4 accent-primary"
                    {...form.register('region_codes')}
                  />
                  {r.name} <span className="text-muted-foreground">({formatNumber(r.location_count)})</span>
                </label>
              ))}
            </div>
          )}
        </fieldset>
      )}
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <Field id="maps-max-locations" label="Max locations" error={errors.max_locations?.message}>
          <Input
            id="maps-max-locations"
            inputMode="numeric"
            placeholder="your cap"
            aria-invalid={Boolean(errors.max_locations)}
            aria-describedby="maps-max-locations-error"
            {...form.register('max_locations')}
          />
        </Field>
        <Field id="maps-max-results" label="Max results" error={errors.max_results?.message}>
          <Input
            id="maps-max-results"
            inputMode="numeric"
            placeholder="your cap"
            aria-invalid={Boolean(errors.max_results)}
            aria-describedby="maps-max-results-error"
            {...form.register('max_results')}
          />
        </Field>
        <Field id="maps-language" label="Language" error={errors.language?.message}>
          <Input
            id="maps-language"
            placeholder="nl"
            aria-invalid={Boolean(errors.language)}
            aria-describedby="maps-language-error"
            {...form.register('language')}
          />
        </Field>
      </div>
      <CostBounds
        areaLocations={areaLocations}
        maxLocations={values.max_locations ?? ''}
        maxResults={values.max_results ?? ''}
      />
      <div className="flex flex-wrap items-center justify-end gap-2">
        <ApiCallButton call={call} />
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Submitting…' : 'Submit job'}
        </Button>
      </div>
    </form>
  );
}

const researchForm = z
  .object({
    source: z.enum(['job', 'companies']),
    source_job_id: z.string(),
    companies: z.string(),
  })
  .superRefine((v, ctx) => {
    if (v.source === 'job' && !v.source_job_id)
      ctx.addIssue({ code: 'custom', path: ['source_job_id'], message: 'Choose a completed maps-scrape job' });
    if (v.source === 'companies') {
      const n = companiesOf(v.companies).length;
      if (n < 1 || n > 500)
        ctx.addIssue({ code: 'custom', path: ['companies'], message: 'List 1 to 500 companies, one per line' });
    }
  });
type ResearchForm = z.infer<typeof researchForm>;

/** "Name, domain" per line (the domain optional). */
function companiesOf(text: string) {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [name, domain] = line.split(',').map((s) => s.trim());
      return domain ? { name, domain } : { name };
    });
}

/** Submits a research job: for the businesses a completed maps-scrape job found, or for companies listed. */
export function SubmitResearchJob() {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline">
          <Plus aria-hidden /> Research job
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Submit a research job"
        description="Researches companies' websites for registry data, contacts, e-mails and phones."
        className="max-w-2xl"
      >
        <ResearchJobForm done={() => setOpen(false)} />
      </DialogContent>
    </Dialog>
  );
}

function ResearchJobForm({ done }: { done: () => void }) {
  const queryClient = useQueryClient();
  const idempotency = useIdempotencyKey();
  const form = useForm<ResearchForm>({
    resolver: zodResolver(researchForm),
    defaultValues: { source: 'companies', source_job_id: '', companies: '' },
  });
  const { errors, isSubmitting } = form.formState;
  const values = useWatch({ control: form.control });
  const completed = useQuery({
    queryKey: ['jobs', 'source-picker'],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/dashboard/client/jobs', {
          params: { query: { type_filter: 'maps-scrape', status_filter: 'completed', page_size: 100 } },
        }),
      ),
    enabled: values.source === 'job',
  });
  const bodyOf = (v: Partial<ResearchForm>) =>
    v.source === 'job' ? { source_job_id: v.source_job_id ?? '' } : { companies: companiesOf(v.companies ?? '') };
  const call: ApiCall = {
    operationId: 'submitResearchJob',
    method: 'POST',
    path: '/api/v1/dashboard/client/research/submit',
    body: bodyOf(values),
    headers: { 'Idempotency-Key': idempotency.key },
  };
  const submit = form.handleSubmit(async (v) => {
    const body = bodyOf(v);
    try {
      const job = await unwrap(
        api.POST('/api/v1/dashboard/client/research/submit', {
          body,
          params: { header: { 'Idempotency-Key': idempotency.keyFor(body) } },
        }),
      );
      idempotency.succeeded();
      toast.success('Research job queued', { description: job.research_id });
      void queryClient.invalidateQueries({ queryKey: ['jobs'] });
      void queryClient.invalidateQueries({ queryKey: ['usage'] });
      done();
    } catch (error) {
      toast.error(describeError(error));
    }
  });
  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-3">
      <fieldset className="flex flex-col gap-1">
        <legend className="text-sm font-medium">Research</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" value="companies" className="accent-primary" {...form.register('source')} /> Companies I
          list
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" value="job" className="accent-primary" {...form.register('source')} /> The businesses a
          maps-scrape job found
        </label>
      </fieldset>
      {values.source === 'job' ? (
        <Field id="research-source" label="Maps-scrape job" error={errors.source_job_id?.message}>
          <NativeSelect
            id="research-source"
            aria-invalid={Boolean(errors.source_job_id)}
            aria-describedby="research-source-error"
            {...form.register('source_job_id')}
          >
            <option value="">{completed.isPending ? 'Loading completed jobs…' : 'Choose a completed job'}</option>
            {completed.data?.jobs.map((j) => (
              <option key={j.job_id} value={j.job_id}>
                {j.query} in {j.country_code} · {formatNumber(j.results_count)} businesses ·{' '}
                {formatDateTime(j.created_at)}
              </option>
            ))}
          </NativeSelect>
        </Field>
      ) : (
        <Field
          id="research-companies"
          label="Companies"
          hint="One per line: the name, then a comma and the web domain if known (e.g. Bakkerij de Zon, dezon.example)."
          error={errors.companies?.message}
        >
          <Textarea
            id="research-companies"
            rows={6}
            aria-invalid={Boolean(errors.companies)}
            aria-describedby="research-companies-hint research-companies-error"
            {...form.register('companies')}
          />
        </Field>
      )}
      <CostBoundsForResearch />
      <div className="flex flex-wrap items-center justify-end gap-2">
        <ApiCallButton call={call} />
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Submitting…' : 'Submit job'}
        </Button>
      </div>
    </form>
  );
}

/** A research job counts against the same jobs-per-tenant bounds; its size is its companies (500 listed). */
function CostBoundsForResearch() {
  const usage = useQuery(usageQuery);
  if (!usage.data) return null;
  const { jobs } = usage.data;
  return (
    <p className="text-sm text-muted-foreground">
      At most 500 companies listed, or 10,000 from a job. Jobs today: {windowText(jobs.per_day)}. This month:{' '}
      {windowText(jobs.per_month)}.
    </p>
  );
}
