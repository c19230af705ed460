/**
 * Type-level tests of the services' inputs, checked by `npm run typecheck` (tsconfig.json includes test/), never run
 * by Jest. A service that receives a request body or query takes the contract's type (src/lib/contract-types.ts),
 * not a copy of it: each `Same` line fails when a service's parameter drifts from the contract's type (a field added
 * to a copy), and each `@ts-expect-error` line must fail to compile (a service reading a field the contract does not
 * declare): were the service typed by a wider shape (`Record<string, any>`, a copy with the field), the typecheck
 * would fail with "Unused '@ts-expect-error' directive".
 */
import type { Defaulted, JsonBody, OmitEach, QueryParams, Schemas } from '../../src/lib/contract-types';
import type { ActivityService } from '../../src/activity/activity.service';
import type { windowOf } from '../../src/admin/kpi-window';
import type { LogStore } from '../../src/admin/log-store';
import type { ClientsService } from '../../src/clients/clients.service';
import type { AuthoringService } from '../../src/content/authoring.service';
import type { PublicContentService } from '../../src/content/public.service';
import type { JobsService } from '../../src/jobs/jobs.service';
import type { MapsJobParams } from '../../src/jobs/maps-scrape';
import type { OutboxService } from '../../src/notifications/outbox.service';
import type { PinsService } from '../../src/pins/pins.service';
import type { SignupService } from '../../src/pins/signup/signup.service';
import type { ResearchParams } from '../../src/research/research-inputs';
import type { ResearchService } from '../../src/research/research.service';
import type { SystemService } from '../../src/system/system.service';
import type { UsersService } from '../../src/users/users.service';
import type { WatchesService } from '../../src/watches/watches.service';
import type { IdapService } from '../../src/idap/idap.service';
import type { Input, Same } from './type-assertions';

export const inputsAreTheContracts: true[] = [
  // jobs and research: the submission, and what a stored job runs with (the submission without its webhook)
  true satisfies Same<Input<JobsService['submit'], 1>, JsonBody<'submitMapsScrapeJob'>>,
  true satisfies Same<MapsJobParams, Omit<JsonBody<'submitMapsScrapeJob'>, 'webhook_url'>>,
  true satisfies Same<Input<JobsService['list'], 1>['status'], QueryParams<'listJobs'>['status_filter']>,
  true satisfies Same<Input<ResearchService['submit'], 1>, JsonBody<'submitResearchJob'>>,
  true satisfies Same<ResearchParams, OmitEach<JsonBody<'submitResearchJob'>, 'webhook_url'>>,
  true satisfies Same<Input<ResearchService['list'], 1>, QueryParams<'listResearchJobs'>['status']>,
  // idap: the lists' and searches' queries, a batch read's body, a flag change
  true satisfies Same<Input<IdapService['search'], 2>, QueryParams<'searchResources'>>,
  true satisfies Same<Input<IdapService['batch'], 1>, JsonBody<'batchGetResources'>>,
  // watches
  true satisfies Same<Input<WatchesService['create'], 1>, JsonBody<'createWatch'>>,
  true satisfies Same<Input<WatchesService['update'], 2>, JsonBody<'updateWatch'>>,
  true satisfies Same<Input<WatchesService['list'], 1>, QueryParams<'listWatches'>['state']>,
  // clients and users
  true satisfies Same<Input<ClientsService['create'], 0>, JsonBody<'createClient'>>,
  true satisfies Same<Input<ClientsService['update'], 1>, JsonBody<'updateClient'>>,
  true satisfies Same<Input<ClientsService['list'], 0>, Pick<QueryParams<'listClients'>, 'is_active'>>,
  true satisfies Same<Input<UsersService['create'], 0>, JsonBody<'createDashboardUser'>>,
  true satisfies Same<Input<UsersService['update'], 1>, JsonBody<'updateDashboardUser'>>,
  true satisfies Same<Input<UsersService['list'], 0>, Pick<QueryParams<'listDashboardUsers'>, 'role' | 'search'>>,
  // content
  true satisfies Same<Input<AuthoringService['createAuthor'], 1>, JsonBody<'createAuthor'>>,
  true satisfies Same<Input<AuthoringService['updateAuthor'], 2>, JsonBody<'updateAuthor'>>,
  true satisfies Same<Input<AuthoringService['createTaxonomy'], 2>, JsonBody<'createTag' | 'createCategory'>>,
  true satisfies Same<Input<AuthoringService['updateTaxonomy'], 3>, JsonBody<'updateTag' | 'updateCategory'>>,
  true satisfies Same<Input<AuthoringService['createPost'], 1>, JsonBody<'createPost'>>,
  true satisfies Same<Input<AuthoringService['updatePost'], 2>, JsonBody<'updatePost'>>,
  true satisfies Same<Input<AuthoringService['createPage'], 1>, JsonBody<'createPage'>>,
  true satisfies Same<Input<AuthoringService['updatePage'], 2>, JsonBody<'updatePage'>>,
  true satisfies Same<Input<AuthoringService['listPosts'], 1>, Omit<QueryParams<'listPosts'>, 'page' | 'page_size'>>,
  true satisfies Same<Input<AuthoringService['listPages'], 1>, Pick<QueryParams<'listPages'>, 'status'>>,
  true satisfies Same<
    Input<PublicContentService['listPosts'], 1>,
    Omit<QueryParams<'listPublicPosts'>, 'page' | 'page_size'>
  >,
  // pins and signup
  true satisfies Same<Input<PinsService['search'], 0>, JsonBody<'searchPins'>>,
  true satisfies Same<Input<PinsService['preview'], 0>, JsonBody<'previewPin'>>,
  true satisfies Same<Input<SignupService['confirm'], 1>, JsonBody<'confirmPin'>>,
  true satisfies Same<Input<SignupService['complete'], 0>, JsonBody<'completeSignup'>>,
  // activity, admin, notifications, system
  true satisfies Same<Input<ActivityService['shifts'], 1>, Defaulted<QueryParams<'listShifts'>, 'gap_minutes'>>,
  true satisfies Same<Input<ActivityService['shiftsCsv'], 1>, Defaulted<QueryParams<'exportShifts'>, 'gap_minutes'>>,
  true satisfies Same<Input<ActivityService['shiftDetail'], 1>, QueryParams<'getShiftDetail'>>,
  true satisfies Same<Input<typeof windowOf, 0>, Pick<QueryParams<'getKpis'>, 'period' | 'from' | 'to'>>,
  true satisfies Same<Input<LogStore['query'], 0>, Defaulted<QueryParams<'getLogs'>, 'minutes' | 'limit'>>,
  true satisfies Same<Input<OutboxService['list'], 0>, Defaulted<QueryParams<'listOutbox'>, 'limit'>>,
  true satisfies Same<Input<SystemService['codec'], 1>, Schemas['TemporalPayloads']>,
];

/** What a service may read of its input: the fields the contract declares, and nothing else. */
export function servicesReadOnlyDeclaredFields(inputs: {
  mapsJob: Input<JobsService['submit'], 1>;
  research: Input<ResearchService['submit'], 1>;
  watch: Input<WatchesService['create'], 1>;
  client: Input<ClientsService['update'], 1>;
  user: Input<UsersService['create'], 0>;
  author: Input<AuthoringService['updateAuthor'], 2>;
  page: Input<AuthoringService['createPage'], 1>;
  posts: Input<PublicContentService['listPosts'], 1>;
  search: Input<PinsService['search'], 0>;
  signup: Input<SignupService['complete'], 0>;
  shifts: Input<ActivityService['shifts'], 1>;
  outbox: Input<OutboxService['list'], 0>;
}): unknown[] {
  const { mapsJob, research, watch, client, user, author, page, posts, search, signup, shifts, outbox } = inputs;
  return [
    mapsJob.query.trim(), // declared fields, typed as the contract declares them
    mapsJob.region_codes?.length,
    // @ts-expect-error submitMapsScrapeJob's body declares no priority
    mapsJob.priority,
    // @ts-expect-error a research job is given companies or a source job; which one, the service must check
    research.companies,
    'source_job_id' in research ? research.source_job_id : research.companies.length,
    // @ts-expect-error createWatch's body declares no owner_email
    watch.owner_email,
    // @ts-expect-error updateClient's body declares no admin_email (it is set once, at creation)
    client.admin_email,
    // @ts-expect-error createDashboardUser's body declares no brand_ids
    user.brand_ids,
    // @ts-expect-error updateAuthor's body declares no client_id
    author.client_id,
    // @ts-expect-error createPage's body declares no status (a page is published by its own operation)
    page.status,
    // @ts-expect-error listPublicPosts declares no status filter (the public site reads published posts only)
    posts.status,
    // @ts-expect-error searchPins's q is text (its other members are free: the body is Meilisearch's)
    search.q satisfies number | undefined,
    // @ts-expect-error completeSignup's body declares no phone
    signup.phone,
    shifts.gap_minutes.toFixed(), // given: the contract's default applied
    // @ts-expect-error listShifts declares no limit
    shifts.limit,
    // @ts-expect-error listOutbox's channel is one of the contract's channels
    outbox.channel satisfies 'push' | undefined,
  ];
}
