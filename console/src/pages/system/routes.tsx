import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { z } from 'zod';
import { appRoute, onlyFor } from '@/routes/app-route';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

const text = (max: number) => z.string().trim().min(1).max(max).optional().catch(undefined);
const bounded = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).catch(fallback).default(fallback);

/**
 * The logs' filters in the URL (getLogs' parameters, within the contract's bounds) and whether the list follows new
 * lines, so a link reproduces the view.
 */
export const systemSearch = z.object({
  container: text(100),
  level: z.enum(LOG_LEVELS).optional().catch(undefined),
  search: text(200),
  minutes: bounded(1, 1440, 15),
  limit: bounded(1, 1000, 100),
  follow: z
    .union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')])
    .catch(false)
    .default(false),
});
export type SystemSearch = z.infer<typeof systemSearch>;

export const systemRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'system',
  beforeLoad: onlyFor('super_admin'),
  staticData: { clientFree: true },
  validateSearch: systemSearch,
  component: lazyRouteComponent(() => import('./system-page'), 'SystemPage'),
});

export const systemRoutes = [systemRoute];
