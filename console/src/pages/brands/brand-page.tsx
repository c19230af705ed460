import { Link, useNavigate } from '@tanstack/react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ArrowLeft } from 'lucide-react';
import { api, unwrap } from '@/api/client';
import { ErrorState, Loading, PageHeader } from '@/components/states';
import { Badge } from '@/components/ui/card';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { formatDateTime } from '@/lib/format';
import { BrandInformationTab, BrandSettingsTab } from './brand-settings';
import { BrandLogoTab } from './brand-logo';
import { BrandMembersTab } from './brand-members';
import { BrandKeysTab } from './brand-keys';
import { PatchForm, type PatchField } from './patch-form';
import { brandQueryKey, canManage, Section, type BodyOf, type Brand } from './shared';
import { brandRoute, type BrandTab } from './routes';

const BRAND_FIELDS: PatchField[] = [
  { name: 'brand_name', label: 'Brand name', kind: 'text' },
  { name: 'billing_email', label: 'Billing e-mail', kind: 'email', nullable: true },
  {
    name: 'subscription_status',
    label: 'Subscription status',
    kind: 'text',
    hint: 'A word such as active, trialing or inactive (lower-case letters and _).',
  },
  {
    name: 'is_active',
    label: 'Active',
    kind: 'boolean',
    hint: "Unticked stops the brand's agents and campaigns from acting for it.",
  },
];

function Overview({ brand }: { brand: Brand }) {
  const queryClient = useQueryClient();
  const path = '/api/v1/brands/{brand_id}' as const;
  return (
    <Section id="brand-details" title="Details" description={`Created ${formatDateTime(brand.created_at)}.`}>
      <PatchForm
        key={brand.updated_at}
        id="brand-details"
        fields={BRAND_FIELDS}
        current={brand}
        disabled={!canManage(brand)}
        save={async (patch) => {
          const saved = await unwrap(
            api.PATCH(path, {
              params: { path: { brand_id: brand.brand_id } },
              body: patch as BodyOf<typeof path, 'patch'>,
            }),
          );
          queryClient.setQueryData(brandQueryKey(brand.brand_id), saved);
          void queryClient.invalidateQueries({ queryKey: ['brands', 'list'] });
        }}
        call={(patch) => ({
          operationId: 'updateBrand',
          method: 'PATCH',
          path,
          pathParams: { brand_id: brand.brand_id },
          body: patch,
        })}
      />
    </Section>
  );
}

const TAB_LABELS: Record<BrandTab, string> = {
  overview: 'Overview',
  settings: 'Settings',
  information: 'Information',
  logo: 'Logo',
  members: 'Members',
  keys: 'Integration keys',
};

/** One brand: its details, settings, information, logo, members and integration keys, a tab each. */
export function BrandPage() {
  const { brandId: raw } = brandRoute.useParams();
  const brandId = Number(raw);
  const search = brandRoute.useSearch();
  const navigate = useNavigate({ from: brandRoute.fullPath });
  const brand = useQuery({
    queryKey: brandQueryKey(brandId),
    queryFn: () => unwrap(api.GET('/api/v1/brands/{brand_id}', { params: { path: { brand_id: brandId } } })),
    enabled: Number.isSafeInteger(brandId) && brandId > 0,
    retry: false,
  });
  const back = (
    <Link
      to="/brands"
      className="inline-flex items-center gap-1 text-sm text-primary underline-offset-4 hover:underline"
    >
      <ArrowLeft className="size-4" aria-hidden /> All brands
    </Link>
  );
  if (!(Number.isSafeInteger(brandId) && brandId > 0) || brand.error)
    return (
      <>
        <PageHeader title="Brand not found" />
        <div className="flex flex-col gap-3">
          <ErrorState
            error={brand.error ?? new Error('Brand not found')}
            retry={brand.error ? () => void brand.refetch() : undefined}
          />
          {back}
        </div>
      </>
    );
  if (brand.isPending) return <Loading label="Loading the brand…" />;
  const b = brand.data;
  const manage = canManage(b);
  const tab = search.tab ?? 'overview';
  const tabs: BrandTab[] = manage
    ? ['overview', 'settings', 'information', 'logo', 'members', 'keys']
    : ['overview', 'members', 'keys'];
  return (
    <>
      {back}
      <PageHeader
        title={b.brand_name}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <span>{b.slug}</span>
            {b.is_active ? <Badge tone="success">Active</Badge> : <Badge tone="warning">Inactive</Badge>}
            <span>Your role: {b.role}</span>
          </span>
        }
      />
      <Tabs
        value={tabs.includes(tab) ? tab : 'overview'}
        onValueChange={(t) => void navigate({ search: (prev) => ({ ...prev, tab: t as BrandTab }) })}
      >
        <TabsList className="mb-4 flex h-auto flex-wrap" aria-label="Brand sections">
          {tabs.map((t) => (
            <TabsTrigger key={t} value={t}>
              {TAB_LABELS[t]}
            </TabsTrigger>
          ))}
        </TabsList>
        <TabsContent value="overview">
          <Overview brand={b} />
        </TabsContent>
        {manage && (
          <>
            <TabsContent value="settings">
              <BrandSettingsTab brand={b} />
            </TabsContent>
            <TabsContent value="information">
              <BrandInformationTab brand={b} />
            </TabsContent>
            <TabsContent value="logo">
              <BrandLogoTab brand={b} />
            </TabsContent>
          </>
        )}
        <TabsContent value="members">
          <BrandMembersTab brand={b} />
        </TabsContent>
        <TabsContent value="keys">
          <BrandKeysTab brand={b} />
        </TabsContent>
      </Tabs>
    </>
  );
}
