import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { z } from 'zod';
import { appRoute } from '@/routes/app-route';

/** The job types the console lists: maps-scrape jobs (listJobs) and research jobs (listResearchJobs, listed apart). */
export const JOB_TYPES = ['maps-scrape', 'research'] as const;
export type JobType = (typeof JOB_TYPES)[number];

/** The states each type's list operation filters on (the contract's enums). */
export const STATUSES: Record<JobType, readonly string[]> = {
  'maps-scrape': ['queued', 'processing', 'completed', 'failed', 'cancelled'],
  research: ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'],
};
export const PAGE_SIZES = [20, 50, 100] as const;

const jobType = z.enum(JOB_TYPES).catch('maps-scrape').default('maps-scrape');
const page = z.coerce.number().int().min(1).catch(1).default(1);

/** The list's view in the URL: the type, the state, the page and its size (a link reproduces it; Back works). */
export const jobsSearch = z.object({
  type: jobType,
  status: z
    .enum(['queued', 'processing', 'running', 'paused', 'completed', 'failed', 'cancelled'])
    .optional()
    .catch(undefined),
  page,
  page_size: z.coerce
    .number()
    .refine((n) => (PAGE_SIZES as readonly number[]).includes(n))
    .catch(20)
    .default(20),
});
export type JobsSearch = z.infer<typeof jobsSearch>;

/** A job's page: its type (which operations read it) and the page of its results shown. */
export const jobSearch = z.object({ type: jobType, page });

export const jobsListRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'jobs',
  validateSearch: jobsSearch,
  component: lazyRouteComponent(() => import('./jobs-page'), 'JobsPage'),
});

export const jobRoute = createRoute({
  getParentRoute: () => appRoute,
  path: 'jobs/$jobId',
  validateSearch: jobSearch,
  component: lazyRouteComponent(() => import('./job-page'), 'JobPage'),
});

export const jobsRoutes = [jobsListRoute, jobRoute];
