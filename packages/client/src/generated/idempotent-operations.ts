// Generated from openapi.yaml by npm run generate:client.

/** The operations whose contract declares the Idempotency-Key header: `METHOD /path/{template}`. */
export const IDEMPOTENT_OPERATIONS: ReadonlySet<string> = new Set([
  'POST /api/v1/agent/confirm-pin',
  'POST /api/v1/agent/proxy/messaging',
  'POST /api/v1/agent/proxy/parcel-tracking',
  'POST /api/v1/auth/pat/request',
  'POST /api/v1/auth/pat/request-by-email',
  'POST /api/v1/brands',
  'POST /api/v1/brands/{brand_id}/agent-users/{agent_user_id}/regenerate',
  'POST /api/v1/brands/{brand_id}/integrations',
  'POST /api/v1/brands/{brand_id}/integrations/{integration_id}/sync-billing',
  'POST /api/v1/dashboard/admin/clients',
  'POST /api/v1/dashboard/client/jobs/maps-scrape/submit',
  'POST /api/v1/dashboard/client/research/submit',
  'POST /api/v1/dashboard/client/watches',
  'POST /api/v1/dashboard/client/watches/{watch_id}/trigger',
  'POST /api/v1/dashboard/content/authors',
  'POST /api/v1/dashboard/content/categories',
  'POST /api/v1/dashboard/content/pages',
  'POST /api/v1/dashboard/content/posts',
  'POST /api/v1/dashboard/content/tags',
  'POST /api/v1/dashboard/credentials/regenerate',
  'POST /api/v1/dashboard/users',
  'POST /api/v1/dashboard/users/{user_id}/brands',
  'POST /api/v1/dashboard/users/{user_id}/trigger-reset',
  'POST /api/v1/dashboard/webhook-secret/rotate',
]);
