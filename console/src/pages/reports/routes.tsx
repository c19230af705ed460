import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { z } from 'zod';
import { appRoute, onlyFor } from '@/routes/app-route';

/** The reports, one shown at a time (a tab): each is one operation of the contract's "Admin KPIs". */
export const REPORT_VIEWS = ['kpis', 'product', 'campaigns', 'web', 'mobile', 'social'] as const;
export type ReportView = (typeof REPORT_VIEWS)[number];

/** The preset windows the report operations take (`period`, the contract's KpiPeriod). */
export const PERIODS = [
  'today',
  'yesterday',
  'last_7_days',
  'last_30_days',
  'last_90_days',
  'month_to_date',
  'year_to_date',
] as const;

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .optional()
  .catch(undefined);

/**
 * The view in the URL: the report, its window (a preset, or first and last day, which the API prefers when given)
 * and a country (ISO 3166-1 alpha-2), so a link reproduces the figures asked for.
 */
export const reportsSearch = z.object({
  view: z.enum(REPORT_VIEWS).catch('kpis').default('kpis'),
  period: z.enum(PERIODS).catch('last_30_days').default('last_30_days'),
  from: day,
  to: day,
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .optional()
    .catch(undefined),
});
export type ReportsSearch = z.infer<typeof reportsSearch>;

export const reportsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'reports',
  beforeLoad: onlyFor('super_admin', 'brand_admin'),
  staticData: { clientFree: true },
  validateSearch: reportsSearch,
  component: lazyRouteComponent(() => import('./reports-page'), 'ReportsPage'),
});

export const reportsRoutes = [reportsRoute];
