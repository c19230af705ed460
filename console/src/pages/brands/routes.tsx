import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { z } from 'zod';
import { appRoute, onlyFor } from '@/routes/app-route';

/** The brands the signed-in administrator may manage (a super_admin: every client's, or the acted-for one's). */
export const brandsRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'brands',
  beforeLoad: onlyFor('super_admin', 'brand_admin'),
  staticData: { clientFree: true },
  validateSearch: z.object({
    page: z.coerce.number().int().min(1).optional().catch(undefined),
  }),
  component: lazyRouteComponent(() => import('./brands-page'), 'BrandsPage'),
});

export const BRAND_TABS = ['overview', 'settings', 'information', 'logo', 'members', 'keys'] as const;
export type BrandTab = (typeof BRAND_TABS)[number];

/**
 * One brand: its tab, the members' page, the key whose spend is drawn and the days of history shown, all in the
 * URL (a link reproduces the view; Back works).
 */
export const brandRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'brands/$brandId',
  beforeLoad: onlyFor('super_admin', 'brand_admin'),
  staticData: { clientFree: true },
  validateSearch: z.object({
    tab: z.enum(BRAND_TABS).optional().catch(undefined),
    members_page: z.coerce.number().int().min(1).optional().catch(undefined),
    key: z.coerce.number().int().min(1).optional().catch(undefined),
    days: z.coerce.number().int().min(1).max(365).optional().catch(undefined),
  }),
  component: lazyRouteComponent(() => import('./brand-page'), 'BrandPage'),
});

export const brandsRoutes = [brandsRoute, brandRoute];
