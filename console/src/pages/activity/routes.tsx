import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { z } from 'zod';
import { appRoute, onlyFor } from '@/routes/app-route';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/**
 * A client's activity (a super_admin acts for a chosen client, a brand_admin sees their own): the tab, the shifts'
 * window, actor, role and gap, and the shift open in its panel all live in the URL (a link reproduces the view).
 */
export const activityRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'activity',
  beforeLoad: onlyFor('super_admin', 'brand_admin'),
  staticData: { clientFree: false },
  validateSearch: z.object({
    tab: z.enum(['shifts', 'digest', 'anomalies']).optional().catch(undefined),
    date: day.optional().catch(undefined),
    from: day.optional().catch(undefined),
    to: day.optional().catch(undefined),
    actor_id: z.uuid().optional().catch(undefined),
    role: z.enum(['super_admin', 'brand_admin', 'client_user', 'agent']).optional().catch(undefined),
    gap_minutes: z.coerce.number().int().min(1).max(1440).optional().catch(undefined),
    /** The shift open in the panel: its actor and span as the list answered them. */
    shift_actor: z.uuid().optional().catch(undefined),
    shift_start: z.string().optional().catch(undefined),
    shift_end: z.string().optional().catch(undefined),
  }),
  component: lazyRouteComponent(() => import('./activity-page'), 'ActivityPage'),
});

export const activityRoutes = [activityRoute];
