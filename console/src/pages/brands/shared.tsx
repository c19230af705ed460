import type { ReactNode } from 'react';
import { Card } from '@/components/ui/card';
import type { components, paths } from '@contract';

export type Brand = components['schemas']['Brand'];
/** The JSON body an operation takes, as the contract declares it. */
export type BodyOf<Path extends keyof paths, Method extends 'post' | 'patch'> =
  NonNullable<paths[Path][Method]> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

export const brandQueryKey = (brandId: number) => ['brands', 'one', brandId] as const;

/** Whether the signed-in user may change the brand: its owners and admins, and a super admin (the API's rule). */
export const canManage = (brand: Brand) => brand.role === 'owner' || brand.role === 'admin';

export function Section({
  id,
  title,
  description,
  actions,
  children,
}: {
  id: string;
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card className="flex flex-col gap-3" role="region" aria-labelledby={`${id}-heading`}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <h2 id={`${id}-heading`} className="text-lg font-semibold">
            {title}
          </h2>
          {description && <p className="text-sm text-muted-foreground">{description}</p>}
        </div>
        {actions && <div className="flex flex-wrap items-center gap-2">{actions}</div>}
      </div>
      {children}
    </Card>
  );
}

/** An amount in the provider's currency, in the user's locale. */
export const money = (amount: number | null | undefined, currency = 'USD') =>
  amount === null || amount === undefined
    ? '—'
    : new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 4 }).format(amount);
