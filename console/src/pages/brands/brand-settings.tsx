import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '@/api/client';
import { ErrorState, Loading } from '@/components/states';
import { formatDateTime, formatNumber } from '@/lib/format';
import type { components } from '@contract';
import { Section, type BodyOf, type Brand } from './shared';
import { PatchForm, type PatchField } from './patch-form';

type Settings = components['schemas']['BrandSettings'];

const MAX = 1_000_000_000;

/** The settings, each in words with the unit it counts. */
const LIMIT_FIELDS: PatchField[] = [
  {
    name: 'default_campaign_quota_daily',
    label: 'Jobs per day',
    kind: 'integer',
    unit: 'jobs per UTC day',
    max: MAX,
    hint: "Jobs agents may submit for the brand in a UTC day; past it they are refused until midnight UTC. 0: no bound of the brand's own.",
  },
  {
    name: 'default_campaign_quota_monthly',
    label: 'Jobs per month',
    kind: 'integer',
    unit: 'jobs per UTC calendar month',
    max: MAX,
    hint: 'Past it, refused until the next month. 0: no bound.',
  },
  {
    name: 'default_campaign_max_concurrent',
    label: 'Unfinished jobs at once',
    kind: 'integer',
    unit: 'jobs queued, running or paused',
    max: MAX,
    hint: '0: no bound.',
  },
  {
    name: 'default_campaign_max_locations',
    label: 'Locations per maps-scrape job',
    kind: 'integer',
    unit: 'locations',
    max: MAX,
    hint: 'The highest max_locations of a job or watch for the brand; one left out gets this. 0: no cap.',
  },
  {
    name: 'default_rate_limit',
    label: "A new agent's request rate",
    kind: 'integer',
    unit: 'requests per minute',
    max: 1_000_000,
    hint: 'Offered when an agent of the brand asks for no limit; agents approved before keep theirs. 0 offers none.',
  },
];

const KEPT_FIELDS: PatchField[] = [
  { name: 'default_auto_campaign_enabled', label: 'Automatic campaigns', kind: 'boolean' },
  {
    name: 'default_auto_campaign_rate_per_hour',
    label: 'Automatic campaign rate',
    kind: 'integer',
    unit: 'campaigns per hour',
    max: MAX,
  },
  {
    name: 'default_auto_campaign_capacity_threshold',
    label: 'Automatic campaign capacity threshold',
    kind: 'integer',
    max: MAX,
  },
  { name: 'fuzziq_enabled', label: 'FuzzIQ enabled', kind: 'boolean' },
  { name: 'brand_voice', label: 'Brand voice', kind: 'text', nullable: true },
  { name: 'brand_tone', label: 'Brand tone', kind: 'text', nullable: true },
  { name: 'brand_name_meaning', label: 'What the name means', kind: 'text', nullable: true },
  { name: 'brand_promise', label: 'Brand promise', kind: 'text', nullable: true },
];

const bound = (n: number, what: string) => (n > 0 ? `${formatNumber(n)} ${what}` : `no bound on ${what}`);

/** What the limits mean, in one sentence: what an agent of the brand may do. */
export function limitsInWords(s: Settings): string {
  return (
    `Agents may submit ${bound(s.default_campaign_quota_daily, 'jobs a day')} and ` +
    `${bound(s.default_campaign_quota_monthly, 'jobs a month')}, with ` +
    `${bound(s.default_campaign_max_concurrent, 'unfinished jobs at once')}; a maps-scrape job covers ` +
    `${s.default_campaign_max_locations > 0 ? `at most ${formatNumber(s.default_campaign_max_locations)} locations` : 'any number of locations'}. ` +
    `A new agent is offered ${s.default_rate_limit > 0 ? `${formatNumber(s.default_rate_limit)} requests per minute` : 'no rate limit'}.`
  );
}

export function BrandSettingsTab({ brand }: { brand: Brand }) {
  const queryClient = useQueryClient();
  const key = ['brands', 'settings', brand.brand_id];
  const settings = useQuery({
    queryKey: key,
    queryFn: () =>
      unwrap(api.GET('/api/v1/brands/{brand_id}/settings', { params: { path: { brand_id: brand.brand_id } } })),
  });
  if (settings.isPending) return <Loading label="Loading the settings…" />;
  if (settings.error) return <ErrorState error={settings.error} retry={() => void settings.refetch()} />;
  const s = settings.data;
  const path = '/api/v1/brands/{brand_id}/settings' as const;
  const save = async (patch: Record<string, unknown>) =>
    queryClient.setQueryData(
      key,
      await unwrap(
        api.PATCH(path, {
          params: { path: { brand_id: brand.brand_id } },
          body: patch as BodyOf<typeof path, 'patch'>,
        }),
      ),
    );
  const call = (patch: Record<string, unknown>) => ({
    operationId: 'updateBrandSettings' as const,
    method: 'PATCH' as const,
    path,
    pathParams: { brand_id: brand.brand_id },
    body: patch,
  });
  return (
    <div className="flex flex-col gap-4">
      <Section
        id="brand-limits"
        title="Job quotas and limits"
        description={`What agents acting for the brand may submit, on top of the client's own bounds. Last changed ${formatDateTime(s.updated_at)}.`}
      >
        <p className="rounded-md bg-muted p-3 text-sm" data-testid="limits-in-words">
          {limitsInWords(s)}
        </p>
        <PatchForm key={s.updated_at} id="brand-limits" fields={LIMIT_FIELDS} current={s} save={save} call={call} />
      </Section>
      <Section
        id="brand-voice"
        title="Voice and automation"
        description="Kept for the brand's own tools and agents to read; the service itself reads none of them."
      >
        <PatchForm key={s.updated_at} id="brand-voice" fields={KEPT_FIELDS} current={s} save={save} call={call} />
      </Section>
    </div>
  );
}

const INFORMATION_FIELDS: PatchField[] = [
  { name: 'website', label: 'Website', kind: 'url', nullable: true },
  { name: 'support_email', label: 'Support e-mail', kind: 'email', nullable: true },
  { name: 'industry', label: 'Industry', kind: 'text', nullable: true },
  { name: 'description', label: 'Description', kind: 'longtext', nullable: true },
  { name: 'street1', label: 'Street', kind: 'text', nullable: true },
  { name: 'street2', label: 'Street (second line)', kind: 'text', nullable: true },
  { name: 'postcode', label: 'Postcode', kind: 'text', nullable: true },
  { name: 'city', label: 'City', kind: 'text', nullable: true },
  { name: 'state', label: 'State or province', kind: 'text', nullable: true },
  {
    name: 'country',
    label: 'Country',
    kind: 'country',
    nullable: true,
    hint: 'Its two-letter ISO code, e.g. NL.',
  },
  { name: 'tax_id', label: 'Tax id', kind: 'text', nullable: true },
  { name: 'vat_id', label: 'VAT id', kind: 'text', nullable: true },
];

export function BrandInformationTab({ brand }: { brand: Brand }) {
  const queryClient = useQueryClient();
  const key = ['brands', 'information', brand.brand_id];
  const info = useQuery({
    queryKey: key,
    queryFn: () =>
      unwrap(api.GET('/api/v1/brands/{brand_id}/information', { params: { path: { brand_id: brand.brand_id } } })),
  });
  if (info.isPending) return <Loading label="Loading the information…" />;
  if (info.error) return <ErrorState error={info.error} retry={() => void info.refetch()} />;
  const path = '/api/v1/brands/{brand_id}/information' as const;
  return (
    <Section
      id="brand-information"
      title="Company information"
      description="The brand's address, tax ids and support address (empty a field to clear it)."
    >
      <PatchForm
        key={info.data.updated_at}
        id="brand-information"
        fields={INFORMATION_FIELDS}
        current={info.data}
        save={async (patch) =>
          queryClient.setQueryData(
            key,
            await unwrap(
              api.PATCH(path, {
                params: { path: { brand_id: brand.brand_id } },
                body: patch as BodyOf<typeof path, 'patch'>,
              }),
            ),
          )
        }
        call={(patch) => ({
          operationId: 'updateBrandInformation',
          method: 'PATCH',
          path,
          pathParams: { brand_id: brand.brand_id },
          body: patch,
        })}
      />
    </Section>
  );
}
