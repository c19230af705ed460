import { createRoute, lazyRouteComponent, redirect } from '@tanstack/react-router';
import { z } from 'zod';
import { appRoute } from '@/routes/app-route';
import { LEAD_TYPES, isLeadType } from './lead-types';

/** One flag of the filter: a name to require, or `!name` to exclude (the API's `flags`). */
const FLAG_TERM = /^!?[a-z][a-z0-9_-]{0,31}$/;

/**
 * The view of one type's table, all in the URL (a link reproduces it, Back goes to the one before): the ranked
 * search's text, the flag filter as the API takes it (`qualified,!rejected`), and the lead open in the panel.
 */
export const leadsSearch = z.object({
  q: z.string().trim().min(1).max(500).optional().catch(undefined),
  flags: z
    .string()
    .max(500)
    .refine((v) => v.split(',').every((t) => FLAG_TERM.test(t)))
    .optional()
    .catch(undefined),
  lead: z
    .string()
    .regex(/^idap:\/\/[a-z_]+\/[0-9a-f-]{36}$/)
    .optional()
    .catch(undefined),
});
export type LeadsSearch = z.infer<typeof leadsSearch>;

// The leads area (issue 49, item 9): /leads opens the businesses; /leads/$type is one table per resource type.
const leadsIndexRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'leads',
  beforeLoad: () => {
    throw redirect({ to: '/leads/$type', params: { type: LEAD_TYPES[0] }, replace: true });
  },
});

export const leadsTypeRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'leads/$type',
  validateSearch: leadsSearch,
  beforeLoad: ({ params }) => {
    if (!isLeadType(params.type))
      throw redirect({ to: '/leads/$type', params: { type: LEAD_TYPES[0] }, replace: true });
  },
  component: lazyRouteComponent(() => import('./leads-page'), 'LeadsPage'),
});

export const leadsRoutes = [leadsIndexRoute, leadsTypeRoute];
