/**
 * Type-level tests of the handlers typed by the contract (src/lib/http/operations.ts), checked by
 * `npm run typecheck` (tsconfig.json includes test/), never run by Jest. Each `@ts-expect-error` line must fail
 * to compile: were the types to let it through, the typecheck would fail with "Unused '@ts-expect-error'
 * directive". The lines without one are what the same types must accept.
 */
import type { ActivitiesOf, SharedActivityNames } from '../../activities';
import { rawResponse, type OperationHandlers } from '../../src/lib/http/operations';

export const handlers: OperationHandlers = {
  // @ts-expect-error a handler for an operation the contract does not declare
  getEverything: () => undefined,

  login(req, res) {
    const { email, password } = req.body; // declared body fields, typed
    void [email.toLowerCase(), password];
    // @ts-expect-error a body field login does not declare
    void req.body.username;
    // @ts-expect-error a path parameter login does not have
    void req.params.user_id;
    // @ts-expect-error a query parameter login does not declare
    void req.query.page;
    // @ts-expect-error an answer of a shape login does not declare
    res.json({ logged_in: true });
    // @ts-expect-error a declared field of the wrong type
    res.json({ access_token: 1, token_type: 'bearer', expires_at: '', user: null });
    // @ts-expect-error a status login does not declare
    res.status(418);
    // @ts-expect-error text, where login declares only JSON
    res.send('logged in');
    // @ts-expect-error the escape from the typed response, for an operation that answers only JSON
    rawResponse(res);
  },

  getJobStatus(req, res) {
    const jobId: string = req.params.job_id; // a declared path parameter, typed
    // @ts-expect-error a path parameter getJobStatus does not have
    void req.params.research_id;
    // @ts-expect-error an answer missing the fields the contract requires
    res.json({ job_id: jobId });
  },

  listJobs(req, res) {
    const page: number | undefined = req.query.page; // a declared query parameter, as the validator coerced it
    void page;
    // @ts-expect-error a query parameter listJobs does not declare
    void req.query.limit;
    // @ts-expect-error a body, where listJobs declares none
    void req.body.status;
    res.json({ jobs: [], total: 0, page: 1, page_size: 20 });
    // @ts-expect-error a field the contract does not declare, in an answer written out
    res.json({ jobs: [], total: 0, page: 1, page_size: 20, next: null });
  },

  createBrand(_req, res) {
    const brand = {
      brand_id: 1,
      brand_name: 'Acme',
      slug: 'acme',
      client_id: 'c1',
      subscription_status: 'active',
      is_active: true,
      billing_email: null,
      logo_url: null,
      role: 'owner',
      created_at: '2025-03-14T09:30:00Z',
      updated_at: '2025-03-14T09:30:00Z',
    } as const;
    res.status(201).json(brand); // the status the contract declares, with its answer
    // @ts-expect-error answering 200, which createBrand does not declare
    res.json(brand);
  },

  exportShifts(_req, res) {
    res.type('text/csv').send('actor_id,started_at\n'); // the media type the contract declares besides JSON
    rawResponse(res).write(''); // the escape, open to an operation that declares an answer other than JSON
  },
};

/** The activity registry is derived from what the modules register: a dropped activity is gone from its type. */
interface Modules {
  pins: { activities: { closePinReservation(id: string): Promise<void> } };
  jobs: { activities: { finishJob(id: string): Promise<null> } | undefined };
  users: { handlers: object };
}
type Registered = ActivitiesOf<Modules>;
export const registered: (keyof Registered)[] = ['closePinReservation', 'finishJob'];
// @ts-expect-error an activity no module registers
export const dropped: keyof Registered = 'startMapsJob';
// @ts-expect-error an activity registered by two modules is named, so the registry cannot hold both
export const unique: [SharedActivityNames<Modules & { other: Modules['pins'] }>] extends [never] ? true : false = true;
