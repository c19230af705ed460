/**
 * A tool's description longer than 1,024 characters fails every request of an OpenAI host that loads the server
 * ("Invalid 'tools[N].function.description': string too long", code string_above_max_length), so the generator
 * refuses to write one. Where an operation's description in openapi.yaml, written for every caller of the API
 * (roles, credentials, the tenancy of a super_admin), makes its tool's longer, the tool says here what an agent
 * needs of it instead: what it does, its inputs, and the refusals an agent can act on. The tool's title and the
 * rule of its body's forms are still added by the generator.
 */
export const TOOL_DESCRIPTIONS: Record<string, string> = {
  submitResearchJob:
    'Starts a durable company-research job, either for the listed companies (1 to 500) or for the businesses a ' +
    'completed maps-scrape job of the same client found (`source_job_id`; 409 when that job is not completed). ' +
    'Findings are written as IDAP resources (company_registry, domains, contacts, emails, phones, ' +
    "linkedin_profiles). Needs scope jobs:submit; the job is the token's client's. Past a bound of the client or of " +
    'the brand it is submitted for (`x_brand_id`, else every brand of the token): its jobs unfinished at once, ' +
    'this UTC day or this UTC month, it answers 429 with a `code` (job_unfinished_limit, job_daily_quota, ' +
    'job_monthly_quota, or brand_...) and Retry-After; while the deployment is busy, 503 with Retry-After. Nothing ' +
    'is recorded: call again after Retry-After.',
  submitMapsScrapeJob:
    'Starts a durable maps-scrape job that searches the maps platform for `query` in the country (and regions), ' +
    'location by location, and stores the businesses found as IDAP resources of the client; answers at once with ' +
    "the queued job. Needs scope jobs:submit; the job is the token's client's. max_locations and max_results are " +
    "capped by the client's job limits and the brand's default_campaign_max_locations: a value over a cap answers " +
    '422 `job_cap_exceeded` naming it, a value left out is set to the cap (the answer shows both values). Past a ' +
    'bound of the client or of the brand it is submitted for (`x_brand_id`, else every brand of the token): its ' +
    'jobs unfinished at once, this UTC day or this UTC month, it answers 429 with a `code` (job_unfinished_limit, ' +
    'job_daily_quota, job_monthly_quota, or brand_...) and Retry-After; while the deployment is busy, 503 with ' +
    'Retry-After. Nothing is recorded: call again after Retry-After.',
  triggerWatch:
    'Starts a run of the watch now, paused or not, as its schedule would; it shows in list_watch_runs within ' +
    'moments. While a run is in progress the one asked for starts right after it (runs never overlap). Not within ' +
    "WATCH_TRIGGER_MIN_INTERVAL_SECONDS (3600 by default) of the watch's last run or trigger: 429 " +
    '`watch_trigger_too_soon` with Retry-After. A watch paused because its creator can no longer act answers 409 ' +
    "`watch_creator_gone` (resume it first). The run counts against the client's job bounds like any job; one " +
    'they refuse is skipped, on the run list with why. Needs scope jobs:submit.',
  confirmPin:
    'Reserves the name for 24 hours and sends the end user (`identifier`) a signup link through `channel`: `sms` ' +
    '(a phone number in E.164) or `email` (an e-mail address). When the end user completes the claim, the ' +
    '`pin_created` notification is POSTed to `callback_url`. A taken name answers 404 `name_not_available` with ' +
    'suggestions; a channel not yet verified answers 503 `channel_not_available`; a destination the channel ' +
    'provider rejects answers 422. Every call sends a message and holds a name for a day, so calls are limited: ' +
    'CONFIRM_PIN_PER_CALLER_PER_HOUR (30) an hour per token and CONFIRM_PIN_PER_RECIPIENT_PER_DAY (3) links a day ' +
    'to one recipient, each answering 429 with Retry-After past it. A token of several brands names the brand in ' +
    '`x_brand_id`.',
  proxyMaps:
    "Calls the maps platform's `path` endpoint with `params`, with the brand's stored maps key, and relays the " +
    "answer. `path` is the provider's sub-path (`geocode/json`, `place/details/json`) and must be on the allowlist " +
    '(400 otherwise); a `.` or `..` segment answers 422. The brand needs an active `maps` integration key, its own ' +
    'or one another brand of its client shares (412 otherwise). A provider 2xx answer comes back as 200 with the ' +
    "provider's JSON unchanged, a provider 4xx as 400 with `provider_status` and `provider_body`. Each call counts " +
    "against the key's minute, daily and spend limits: 429 with Retry-After when one is reached (the call is not " +
    'forwarded). A token of several brands names the brand in `x_brand_id`.',
  listResources:
    "Pages through the tenant's resources of one `type`, oldest change first, `limit` at a time; `next_cursor` " +
    'continues. With `modified_since` it starts at the resources created or changed at or after that time. When ' +
    '`has_more` is false, every resource changed up to a few seconds ago has been listed, and `next_cursor` (never ' +
    'null) later answers only what was created or changed since: following it sees every resource at least once, ' +
    'in its latest state. `flags` filters (a name requires it, `!name` excludes it); by default nothing is left ' +
    'out, rejected resources included. A cursor keeps its type and flags: sent with another type or other flags, ' +
    'with `modified_since`, or not issued by this service, it answers 422. `fields` narrows `data`. Needs scope ' +
    'jobs:read.',
  createWatch:
    'Saves a maps-scrape or research job to run on a cadence (a Temporal Schedule): every `interval_seconds` ' +
    '(counted from the Unix epoch: 86400 runs at 00:00 UTC), or at the times of a five-field `cron` expression ' +
    'read in `time_zone`. Each run is an ordinary job (listed with the jobs, `watch_id` set) and reports the leads ' +
    'it saw first (list_watch_runs, and a `watch.new_leads` event). A run still going when the next is due makes ' +
    'that one skipped; a run missed while the service was away starts late within `catchup_window_seconds`. A ' +
    'client has at most WATCHES_MAX_PER_CLIENT watches (20 by default; one more answers 409), and none runs more ' +
    'often than every WATCH_MIN_INTERVAL_SECONDS (3600 by default; closer runs answer 422). Needs scope ' +
    'jobs:submit.',
};
