import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Gauge, KeyRound, Plus, RotateCcw, Stethoscope } from 'lucide-react';
import { toast } from 'sonner';
import { api, unwrap } from '@/api/client';
import { describeError } from '@/api/errors';
import { ApiCallButton } from '@/components/api-call-button';
import { DataTable } from '@/components/data-table';
import { Empty } from '@/components/states';
import { Button } from '@/components/ui/button';
import { Badge } from '@/components/ui/card';
import { Dialog, DialogContent, DialogTrigger } from '@/components/ui/dialog';
import { Field, Input, NativeSelect } from '@/components/ui/input';
import { formatDateTime, formatNumber, formatRelative } from '@/lib/format';
import type { components } from '@contract';
import { KeyCharts } from './key-charts';
import { PatchForm, type PatchField } from './patch-form';
import { brandRoute } from './routes';
import { canManage, money, Section, type BodyOf, type Brand } from './shared';

type Key = components['schemas']['IntegrationKey'];
type Template = components['schemas']['ProviderTemplate'];

const keysKey = (brandId: number) => ['brands', 'keys', brandId];

const per = (n: number | null, unit: string) => (n === null ? `no ${unit} limit` : `${formatNumber(n)} per ${unit}`);

/** The fields of a provider's credentials, as its template names them; every required one must be given. */
function CredentialFields({
  template,
  values,
  onChange,
  idPrefix,
  errors,
}: {
  template: Template;
  values: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
  idPrefix: string;
  errors: Record<string, string>;
}) {
  return (
    <>
      {template.fields.map((f) => {
        const id = `${idPrefix}-${f.name}`;
        return (
          <Field key={f.name} id={id} label={f.label} hint={f.description ?? undefined} error={errors[f.name]}>
            <Input
              id={id}
              type={f.type === 'secret' ? 'password' : 'text'}
              autoComplete="off"
              value={values[f.name] ?? ''}
              aria-invalid={Boolean(errors[f.name])}
              aria-describedby={
                [f.description ? `${id}-hint` : '', errors[f.name] ? `${id}-error` : ''].filter(Boolean).join(' ') ||
                undefined
              }
              onChange={(e) => onChange({ ...values, [f.name]: e.target.value })}
            />
          </Field>
        );
      })}
    </>
  );
}

const missingOf = (template: Template, values: Record<string, string>) =>
  Object.fromEntries(
    template.fields.filter((f) => f.required && !values[f.name]?.trim()).map((f) => [f.name, `${f.label}: required`]),
  );

const credentialsOf = (template: Template, values: Record<string, string>) =>
  Object.fromEntries(
    template.fields
      .filter((f) => values[f.name]?.trim())
      .map((f) => [
        f.name,
        f.type === 'number'
          ? Number(values[f.name])
          : f.type === 'boolean'
            ? values[f.name] === 'true'
            : values[f.name].trim(),
      ]),
  );

/** The credential values never reach "show the API call": each is a placeholder there. */
const placeholders = (template: Template) => Object.fromEntries(template.fields.map((f) => [f.name, `<${f.name}>`]));

function AddKey({ brand, templates }: { brand: Brand; templates: Template[] }) {
  const [open, setOpen] = useState(false);
  const [provider, setProvider] = useState('');
  const [label, setLabel] = useState('');
  const [creds, setCreds] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [primary, setPrimary] = useState(true);
  const queryClient = useQueryClient();
  const template = templates.find((t) => t.provider_name === provider);
  const path = '/api/v1/brands/{brand_id}/integrations' as const;
  const add = useMutation({
    mutationFn: (body: BodyOf<typeof path, 'post'>) =>
      unwrap(api.POST(path, { params: { path: { brand_id: brand.brand_id } }, body })),
    onSuccess: (key) => {
      toast.success(`Key added: ${key.key_label}`);
      void queryClient.invalidateQueries({ queryKey: keysKey(brand.brand_id) });
      setOpen(false);
      setCreds({});
      setLabel('');
    },
    onError: (e) => toast.error(describeError(e)),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!template) found.provider = 'Choose the provider';
    if (!label.trim()) found.label = 'Name the key (e.g. Production maps key)';
    Object.assign(found, template ? missingOf(template, creds) : {});
    setErrors(found);
    if (Object.keys(found).length || !template) return;
    add.mutate({
      provider_name: template.provider_name,
      key_label: label.trim(),
      credentials: credentialsOf(template, creds),
      is_primary: primary,
    });
  };
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button>
          <Plus aria-hidden /> Add key
        </Button>
      </DialogTrigger>
      <DialogContent
        title="Add an integration key"
        description="Stored encrypted and only ever shown masked. Limits can be set once it is added."
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-3">
          <Field id="key-provider" label="Provider" error={errors.provider}>
            <NativeSelect
              id="key-provider"
              value={provider}
              aria-invalid={Boolean(errors.provider)}
              aria-describedby={errors.provider ? 'key-provider-error' : undefined}
              onChange={(e) => {
                setProvider(e.target.value);
                setCreds({});
              }}
            >
              <option value="">Choose a provider</option>
              {templates.map((t) => (
                <option key={t.provider_name} value={t.provider_name}>
                  {t.display_name}
                </option>
              ))}
            </NativeSelect>
          </Field>
          {template && (
            <p className="text-sm text-muted-foreground">
              {template.description} Each relayed call counts {money(template.price_per_call, template.currency)}.
            </p>
          )}
          <Field id="key-label" label="Key label" error={errors.label}>
            <Input
              id="key-label"
              value={label}
              maxLength={100}
              aria-invalid={Boolean(errors.label)}
              aria-describedby={errors.label ? 'key-label-error' : undefined}
              onChange={(e) => setLabel(e.target.value)}
            />
          </Field>
          {template && (
            <CredentialFields
              template={template}
              values={creds}
              onChange={setCreds}
              idPrefix="key-new"
              errors={errors}
            />
          )}
          <label className="flex items-center gap-2 text-sm" htmlFor="key-primary">
            <input
              id="key-primary"
              type="checkbox"
              className="size-4 accent-primary"
              checked={primary}
              onChange={(e) => setPrimary(e.target.checked)}
            />
            Use this key first for the provider (primary)
          </label>
          <div className="flex flex-wrap items-center justify-end gap-2">
            <ApiCallButton
              call={{
                operationId: 'createIntegration',
                method: 'POST',
                path,
                pathParams: { brand_id: brand.brand_id },
                body: {
                  provider_name: provider,
                  key_label: label,
                  credentials: template ? placeholders(template) : {},
                  is_primary: primary,
                },
              }}
            />
            <Button type="submit" disabled={add.isPending}>
              {add.isPending ? 'Adding…' : 'Add key'}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}

const keyPath = '/api/v1/brands/{brand_id}/integrations/{integration_id}' as const;

/** A new secret for the key: the stored credentials are replaced as a whole (updateIntegration's `credentials`). */
function RotateKey({ brand, item, template }: { brand: Brand; item: Key; template: Template | undefined }) {
  const [open, setOpen] = useState(false);
  const [creds, setCreds] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const queryClient = useQueryClient();
  const rotate = useMutation({
    mutationFn: (credentials: Record<string, unknown>) =>
      unwrap(
        api.PATCH(keyPath, {
          params: { path: { brand_id: brand.brand_id, integration_id: item.integration_id } },
          body: { credentials },
        }),
      ),
    onSuccess: (key) => {
      toast.success(`Key replaced: now ${Object.values(key.credentials_masked).join(', ')}`);
      void queryClient.invalidateQueries({ queryKey: keysKey(brand.brand_id) });
      setOpen(false);
      setCreds({});
    },
    onError: (e) => toast.error(describeError(e)),
  });
  if (!template) return null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = missingOf(template, creds);
    setErrors(found);
    if (!Object.keys(found).length) rotate.mutate(credentialsOf(template, creds));
  };
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm" aria-label={`Rotate ${item.key_label}`}>
          <KeyRound aria-hidden /> Rotate
        </Button>
      </DialogTrigger>
      <DialogContent
        title={`Rotate ${item.key_label}`}
        description="The new credentials replace the stored ones as a whole; relayed calls use them at once. Limits, usage and spend stay."
      >
        <form onSubmit={submit} noValidate className="flex flex-col gap-3">
          <p className="text-sm">
            Now: <span className="font-mono">{Object.values(item.credentials_masked).join(', ')}</span>
          </p>
          <CredentialFields
            template={template}
            values={creds}
            onChange={setCreds}
            idPrefix={`key-rotate-${item.integration_id}`}
            errors={errors}
          />
          <div className="flex flex-wrap items-center justify-end gap-2">
            <ApiCallButton
              call={{
                operationId: 'updateIntegration',
                method: 'PATCH',
                path: keyPath,
                pathParams: { brand_id: brand.brand_id, integration_id: item.integration_id },
                body: { credentials: placeholders(template) },
              }}
            />
            <Button type="submit" disabled={rotate.isPending}>
              {rotate.isPending ? 'Replacing…' : 'Replace the key'}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}

const LIMIT_FIELDS: PatchField[] = [
  { name: 'key_label', label: 'Key label', kind: 'text' },
  {
    name: 'daily_limit',
    label: 'Calls per day',
    kind: 'integer',
    unit: 'calls per UTC day',
    max: 100_000_000,
    nullable: true,
    hint: 'Empty: unlimited.',
  },
  {
    name: 'minute_limit',
    label: 'Calls per minute',
    kind: 'integer',
    unit: 'calls per minute',
    max: 1_000_000,
    nullable: true,
    hint: 'Empty: unlimited.',
  },
  {
    name: 'spend_limit_amount',
    label: 'Spend limit',
    kind: 'amount',
    max: 1_000_000_000,
    nullable: true,
    hint: "In the provider's currency, per spend period. Empty: none.",
  },
  { name: 'is_primary', label: 'Primary (used first for the provider)', kind: 'boolean' },
  { name: 'is_active', label: 'Active', kind: 'boolean' },
];

/** Usage and spend limits of a key, its spend period and what happens when the limit is reached. */
function KeyLimits({ brand, item }: { brand: Brand; item: Key }) {
  const [open, setOpen] = useState(false);
  const [period, setPeriod] = useState(item.spend_limit_period ?? '');
  const [action, setAction] = useState(item.spend_limit_action ?? '');
  const queryClient = useQueryClient();
  const params = { path: { brand_id: brand.brand_id, integration_id: item.integration_id } };
  const withSpendRules = (patch: Record<string, unknown>) => ({
    ...patch,
    ...(period !== (item.spend_limit_period ?? '') ? { spend_limit_period: period || null } : {}),
    ...(action !== (item.spend_limit_action ?? '') ? { spend_limit_action: action || null } : {}),
  });
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm" aria-label={`Limits of ${item.key_label}`}>
          <Gauge aria-hidden /> Limits
        </Button>
      </DialogTrigger>
      <DialogContent title={`Limits of ${item.key_label}`} className="max-w-2xl">
        <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
          <Field id={`spend-period-${item.integration_id}`} label="Spend period">
            <NativeSelect
              id={`spend-period-${item.integration_id}`}
              value={period}
              onChange={(e) => setPeriod(e.target.value as typeof period)}
            >
              <option value="">Monthly (the default)</option>
              <option value="daily">Daily (UTC day)</option>
              <option value="weekly">Weekly (from Monday, UTC)</option>
              <option value="monthly">Monthly (calendar month, UTC)</option>
            </NativeSelect>
          </Field>
          <Field id={`spend-action-${item.integration_id}`} label="When the spend limit is reached">
            <NativeSelect
              id={`spend-action-${item.integration_id}`}
              value={action}
              onChange={(e) => setAction(e.target.value as typeof action)}
            >
              <option value="">Nothing</option>
              <option value="notify">E-mail the brand's admins</option>
              <option value="block">Stop using the key until the period ends</option>
            </NativeSelect>
          </Field>
        </div>
        <PatchForm
          key={item.updated_at}
          id={`key-limits-${item.integration_id}`}
          fields={LIMIT_FIELDS}
          current={item}
          submitLabel="Save limits"
          save={async (patch) => {
            const body = withSpendRules(patch);
            if (!Object.keys(body).length) return;
            await unwrap(api.PATCH(keyPath, { params, body: body as BodyOf<typeof keyPath, 'patch'> }));
            void queryClient.invalidateQueries({ queryKey: keysKey(brand.brand_id) });
            setOpen(false);
          }}
          call={(patch) => ({
            operationId: 'updateIntegration',
            method: 'PATCH',
            path: keyPath,
            pathParams: { brand_id: brand.brand_id, integration_id: item.integration_id },
            body: withSpendRules(patch),
          })}
        />
      </DialogContent>
    </Dialog>
  );
}

function KeyActions({ brand, item, template }: { brand: Brand; item: Key; template: Template | undefined }) {
  const queryClient = useQueryClient();
  const params = { path: { brand_id: brand.brand_id, integration_id: item.integration_id } };
  const reset = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/brands/{brand_id}/integrations/{integration_id}/reset-usage', { params })),
    onSuccess: () => {
      toast.success(`Usage counters of ${item.key_label} set to zero`);
      void queryClient.invalidateQueries({ queryKey: keysKey(brand.brand_id) });
    },
    onError: (e) => toast.error(describeError(e)),
  });
  const test = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/brands/{brand_id}/integrations/{integration_id}/test', { params })),
    onSuccess: (r) =>
      r.ok
        ? toast.success(`${item.key_label}: the provider accepted the key`, {
            description: `${r.message} (${formatNumber(Math.round(r.latency_ms))} ms)`,
          })
        : toast.error(`${item.key_label}: not accepted`, {
            description: `${r.message}${r.provider_status ? ` (HTTP ${r.provider_status})` : ' (provider unreachable)'}`,
          }),
    onError: (e) => toast.error(describeError(e)),
  });
  const pathParams = { brand_id: brand.brand_id, integration_id: item.integration_id };
  return (
    <div className="flex min-w-64 flex-wrap gap-1">
      <KeyLimits brand={brand} item={item} />
      <RotateKey brand={brand} item={item} template={template} />
      <Button
        variant="outline"
        size="sm"
        aria-label={`Reset usage of ${item.key_label}`}
        disabled={reset.isPending}
        onClick={() => reset.mutate()}
      >
        <RotateCcw aria-hidden /> Reset usage
      </Button>
      <ApiCallButton
        label="Reset call"
        call={{
          operationId: 'resetIntegrationUsage',
          method: 'POST',
          path: '/api/v1/brands/{brand_id}/integrations/{integration_id}/reset-usage',
          pathParams,
        }}
      />
      {template?.supports_test !== false && (
        <>
          <Button
            variant="outline"
            size="sm"
            aria-label={`Test ${item.key_label}`}
            disabled={test.isPending}
            onClick={() => test.mutate()}
          >
            <Stethoscope aria-hidden /> {test.isPending ? 'Testing…' : 'Test'}
          </Button>
          <ApiCallButton
            label="Test call"
            call={{
              operationId: 'testIntegration',
              method: 'POST',
              path: '/api/v1/brands/{brand_id}/integrations/{integration_id}/test',
              pathParams,
            }}
          />
        </>
      )}
    </div>
  );
}

/**
 * The brand's integration keys: each with its masked credentials, usage against its limits and spend in its
 * period; add, rotate, limits, reset usage and test (owners and admins); and usage and spend over time as charts.
 */
export function BrandKeysTab({ brand }: { brand: Brand }) {
  const search = brandRoute.useSearch();
  const navigate = useNavigate({ from: brandRoute.fullPath });
  const manage = canManage(brand);
  const keys = useQuery({
    queryKey: [...keysKey(brand.brand_id), 'list'],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/brands/{brand_id}/integrations/all', {
          params: { path: { brand_id: brand.brand_id }, query: { page_size: 100 } },
        }),
      ),
  });
  const templates = useQuery({
    queryKey: ['brands', 'providers', brand.brand_id],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/brands/{brand_id}/integrations/providers', { params: { path: { brand_id: brand.brand_id } } }),
      ),
    staleTime: Infinity,
  });
  const templateOf = (name: string) => templates.data?.providers.find((t) => t.provider_name === name);
  const columns = useMemo<ColumnDef<Key>[]>(
    () => [
      {
        header: 'Key',
        cell: ({ row }) => (
          <div className="flex flex-col">
            <span className="font-medium">{row.original.key_label}</span>
            <span className="font-mono text-xs text-muted-foreground">
              {Object.values(row.original.credentials_masked).join(', ')}
            </span>
          </div>
        ),
      },
      {
        header: 'Provider',
        cell: ({ row }) => (
          <span className="flex flex-wrap gap-1">
            {templates.data?.providers.find((t) => t.provider_name === row.original.provider_name)?.display_name ??
              row.original.provider_name}
            {row.original.is_primary && <Badge tone="info">Primary</Badge>}
            {!row.original.is_active && <Badge tone="warning">Inactive</Badge>}
          </span>
        ),
      },
      {
        header: 'Usage',
        cell: ({ row }) => (
          <span className="block min-w-48">
            {formatNumber(row.original.usage_today)} calls today ({per(row.original.daily_limit, 'day')});{' '}
            {formatNumber(row.original.usage_this_minute)} this minute ({per(row.original.minute_limit, 'minute')})
          </span>
        ),
      },
      {
        header: 'Spend this period',
        cell: ({ row }) => (
          <span>
            {money(row.original.spend_current_period, row.original.currency)}
            {row.original.spend_limit_amount !== null &&
              ` of ${money(row.original.spend_limit_amount, row.original.currency)} ${row.original.spend_limit_period ?? 'monthly'}` +
                (row.original.spend_limit_action === 'block'
                  ? ', then blocked'
                  : row.original.spend_limit_action === 'notify'
                    ? ', then admins e-mailed'
                    : '')}
          </span>
        ),
      },
      {
        header: 'Last used',
        cell: ({ row }) =>
          row.original.last_used_at ? (
            <time dateTime={row.original.last_used_at} title={formatDateTime(row.original.last_used_at)}>
              {formatRelative(row.original.last_used_at)}
            </time>
          ) : (
            'Never'
          ),
      },
      ...(manage
        ? [
            {
              id: 'actions',
              header: 'Actions',
              cell: ({ row }: { row: { original: Key } }) => (
                <KeyActions brand={brand} item={row.original} template={templateOf(row.original.provider_name)} />
              ),
            } satisfies ColumnDef<Key>,
          ]
        : []),
    ],
    // templateOf reads templates.data, listed here.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [brand, manage, templates.data],
  );
  const list = keys.data?.integrations ?? [];
  const chosen = list.find((k) => k.integration_id === search.key) ?? list[0];
  return (
    <div className="flex flex-col gap-4">
      <Section
        id="brand-keys"
        title="Integration keys"
        description="Provider keys the service relays calls with for the brand; calls and spend count against each key's limits."
        actions={
          <>
            <ApiCallButton
              label="List"
              call={{
                operationId: 'listIntegrations',
                method: 'GET',
                path: '/api/v1/brands/{brand_id}/integrations/all',
                pathParams: { brand_id: brand.brand_id },
                query: { page_size: 100 },
              }}
            />
            {manage && templates.data && <AddKey brand={brand} templates={templates.data.providers} />}
          </>
        }
      >
        <DataTable
          label="Integration keys"
          columns={columns}
          data={list}
          getRowId={(k) => String(k.integration_id)}
          isLoading={keys.isPending}
          error={keys.error}
          retry={() => void keys.refetch()}
          height="28rem"
          rowHeight={64}
          empty={<Empty title="No keys yet">{manage ? 'Add one with "Add key".' : undefined}</Empty>}
        />
      </Section>
      {chosen && (
        <KeyCharts
          brand={brand}
          keys={list}
          chosen={chosen}
          days={search.days ?? 30}
          onChoose={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
        />
      )}
    </div>
  );
}
