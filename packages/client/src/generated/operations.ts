// Generated from openapi.yaml by npm run generate:client.

export interface OperationParameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required: boolean;
}

export interface Operation {
  method: string;
  /** The path template, e.g. /api/v1/dashboard/client/jobs/{job_id}/status. */
  path: string;
  parameters: readonly OperationParameter[];
  body: 'required' | 'optional' | 'none';
}

/** Every operation of the contract by its operationId. */
export const OPERATIONS: Readonly<Record<string, Operation>> = {
  addBrandMember: {
    method: 'POST',
    path: '/api/v1/brands/{brand_id}/members',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  addUserToBrand: {
    method: 'POST',
    path: '/api/v1/dashboard/users/{user_id}/brands',
    parameters: [
      { in: 'path', name: 'user_id', required: true },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  approveAccessRequest: {
    method: 'GET',
    path: '/api/v1/auth/pat/request/{request_id}/approve',
    parameters: [
      { in: 'path', name: 'request_id', required: true },
      { in: 'query', name: 'approval_token', required: true },
    ],
    body: 'none',
  },
  batchGetResources: {
    method: 'POST',
    path: '/api/v1/idap/batch',
    parameters: [{ in: 'header', name: 'X-Selected-Client-Id', required: false }],
    body: 'required',
  },
  batchUpdateFlags: {
    method: 'POST',
    path: '/api/v1/idap/flags',
    parameters: [{ in: 'header', name: 'X-Selected-Client-Id', required: false }],
    body: 'required',
  },
  cancelJob: {
    method: 'POST',
    path: '/api/v1/dashboard/client/jobs/{job_id}/cancel',
    parameters: [
      { in: 'path', name: 'job_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  cancelResearchJob: {
    method: 'POST',
    path: '/api/v1/dashboard/client/research/{research_id}/cancel',
    parameters: [
      { in: 'path', name: 'research_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  checkSignupName: {
    method: 'GET',
    path: '/api/v1/signup/check-name',
    parameters: [{ in: 'query', name: 'name', required: true }],
    body: 'none',
  },
  completeSignup: {
    method: 'POST',
    path: '/api/v1/signup/complete',
    parameters: [{ in: 'header', name: 'Idempotency-Key', required: false }],
    body: 'required',
  },
  confirmApproveAccessRequest: {
    method: 'POST',
    path: '/api/v1/auth/pat/request/{request_id}/approve',
    parameters: [
      { in: 'path', name: 'request_id', required: true },
      { in: 'header', name: 'Idempotency-Key', required: false },
      { in: 'query', name: 'approval_token', required: true },
    ],
    body: 'optional',
  },
  confirmDenyAccessRequest: {
    method: 'POST',
    path: '/api/v1/auth/pat/request/{request_id}/deny',
    parameters: [
      { in: 'path', name: 'request_id', required: true },
      { in: 'header', name: 'Idempotency-Key', required: false },
      { in: 'query', name: 'approval_token', required: true },
    ],
    body: 'none',
  },
  confirmPin: {
    method: 'POST',
    path: '/api/v1/agent/confirm-pin',
    parameters: [
      { in: 'header', name: 'X-Brand-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  createAuthor: {
    method: 'POST',
    path: '/api/v1/dashboard/content/authors',
    parameters: [
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  createBrand: {
    method: 'POST',
    path: '/api/v1/brands',
    parameters: [
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  createCategory: {
    method: 'POST',
    path: '/api/v1/dashboard/content/categories',
    parameters: [
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  createClient: {
    method: 'POST',
    path: '/api/v1/dashboard/admin/clients',
    parameters: [{ in: 'header', name: 'Idempotency-Key', required: false }],
    body: 'required',
  },
  createDashboardUser: {
    method: 'POST',
    path: '/api/v1/dashboard/users',
    parameters: [{ in: 'header', name: 'Idempotency-Key', required: false }],
    body: 'required',
  },
  createIntegration: {
    method: 'POST',
    path: '/api/v1/brands/{brand_id}/integrations',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  createPage: {
    method: 'POST',
    path: '/api/v1/dashboard/content/pages',
    parameters: [
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  createPost: {
    method: 'POST',
    path: '/api/v1/dashboard/content/posts',
    parameters: [
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  createTag: {
    method: 'POST',
    path: '/api/v1/dashboard/content/tags',
    parameters: [
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  createWatch: {
    method: 'POST',
    path: '/api/v1/dashboard/client/watches',
    parameters: [
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
      { in: 'header', name: 'X-Brand-Id', required: false },
    ],
    body: 'required',
  },
  decideAccessRequest: {
    method: 'POST',
    path: '/api/v1/auth/pat/requests/{request_id}/decision',
    parameters: [
      { in: 'path', name: 'request_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  decodeTemporalPayloads: {
    method: 'POST',
    path: '/api/v1/system/temporal-codec/decode',
    parameters: [{ in: 'header', name: 'X-Namespace', required: false }],
    body: 'required',
  },
  deleteAuthor: {
    method: 'DELETE',
    path: '/api/v1/dashboard/content/authors/{author_id}',
    parameters: [
      { in: 'path', name: 'author_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  deleteBrandLogo: {
    method: 'DELETE',
    path: '/api/v1/brands/{brand_id}/logo',
    parameters: [{ in: 'path', name: 'brand_id', required: true }],
    body: 'none',
  },
  deleteCategory: {
    method: 'DELETE',
    path: '/api/v1/dashboard/content/categories/{category_id}',
    parameters: [
      { in: 'path', name: 'category_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  deleteContentMedia: {
    method: 'DELETE',
    path: '/api/v1/dashboard/content/media/{media_id}',
    parameters: [
      { in: 'path', name: 'media_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  deleteDashboardUser: {
    method: 'DELETE',
    path: '/api/v1/dashboard/users/{user_id}',
    parameters: [{ in: 'path', name: 'user_id', required: true }],
    body: 'none',
  },
  deleteIntegration: {
    method: 'DELETE',
    path: '/api/v1/brands/{brand_id}/integrations/{integration_id}',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'integration_id', required: true },
    ],
    body: 'none',
  },
  deletePage: {
    method: 'DELETE',
    path: '/api/v1/dashboard/content/pages/{page_id}',
    parameters: [
      { in: 'path', name: 'page_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  deletePost: {
    method: 'DELETE',
    path: '/api/v1/dashboard/content/posts/{post_id}',
    parameters: [
      { in: 'path', name: 'post_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  deleteTag: {
    method: 'DELETE',
    path: '/api/v1/dashboard/content/tags/{tag_id}',
    parameters: [
      { in: 'path', name: 'tag_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  deleteWatch: {
    method: 'DELETE',
    path: '/api/v1/dashboard/client/watches/{watch_id}',
    parameters: [
      { in: 'path', name: 'watch_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  denyAccessRequest: {
    method: 'GET',
    path: '/api/v1/auth/pat/request/{request_id}/deny',
    parameters: [
      { in: 'path', name: 'request_id', required: true },
      { in: 'query', name: 'approval_token', required: true },
    ],
    body: 'none',
  },
  encodeTemporalPayloads: {
    method: 'POST',
    path: '/api/v1/system/temporal-codec/encode',
    parameters: [{ in: 'header', name: 'X-Namespace', required: false }],
    body: 'required',
  },
  exportShifts: {
    method: 'GET',
    path: '/api/v1/export.csv',
    parameters: [
      { in: 'query', name: 'date', required: false },
      { in: 'query', name: 'from', required: false },
      { in: 'query', name: 'to', required: false },
      { in: 'query', name: 'actor_id', required: false },
      { in: 'query', name: 'role', required: false },
      { in: 'query', name: 'gap_minutes', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  generatePassword: {
    method: 'GET',
    path: '/api/v1/dashboard/users/{user_id}/generate-password',
    parameters: [{ in: 'path', name: 'user_id', required: true }],
    body: 'none',
  },
  getAccessRequestStatus: {
    method: 'GET',
    path: '/api/v1/auth/pat/request/{request_id}/status',
    parameters: [
      { in: 'path', name: 'request_id', required: true },
      { in: 'query', name: 'poll_token', required: true },
    ],
    body: 'none',
  },
  getAccessTokenStatus: { method: 'GET', path: '/api/v1/auth/pat/status', parameters: [], body: 'none' },
  getBrand: {
    method: 'GET',
    path: '/api/v1/brands/{brand_id}',
    parameters: [{ in: 'path', name: 'brand_id', required: true }],
    body: 'none',
  },
  getBrandInformation: {
    method: 'GET',
    path: '/api/v1/brands/{brand_id}/information',
    parameters: [{ in: 'path', name: 'brand_id', required: true }],
    body: 'none',
  },
  getBrandLogoImage: {
    method: 'GET',
    path: '/api/v1/brand-logos/{brand_id}/{logo_file}',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'logo_file', required: true },
    ],
    body: 'none',
  },
  getBrandSettings: {
    method: 'GET',
    path: '/api/v1/brands/{brand_id}/settings',
    parameters: [{ in: 'path', name: 'brand_id', required: true }],
    body: 'none',
  },
  getCampaignsReport: {
    method: 'GET',
    path: '/api/v1/dashboard/admin/campaigns',
    parameters: [
      { in: 'query', name: 'refresh', required: false },
      { in: 'query', name: 'period', required: false },
      { in: 'query', name: 'from', required: false },
      { in: 'query', name: 'to', required: false },
      { in: 'query', name: 'country', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getClientUsage: {
    method: 'GET',
    path: '/api/v1/dashboard/client/usage',
    parameters: [{ in: 'header', name: 'X-Selected-Client-Id', required: false }],
    body: 'none',
  },
  getContentMediaImage: {
    method: 'GET',
    path: '/api/v1/content/media/{media_id}/{file}',
    parameters: [
      { in: 'path', name: 'media_id', required: true },
      { in: 'path', name: 'file', required: true },
    ],
    body: 'none',
  },
  getContentSite: {
    method: 'GET',
    path: '/api/v1/dashboard/content/site',
    parameters: [{ in: 'header', name: 'X-Selected-Client-Id', required: false }],
    body: 'none',
  },
  getCredentialHealth: { method: 'GET', path: '/api/v1/system/credential-health', parameters: [], body: 'none' },
  getDigestSettings: {
    method: 'GET',
    path: '/api/v1/digest-settings',
    parameters: [{ in: 'header', name: 'X-Selected-Client-Id', required: false }],
    body: 'none',
  },
  getEventStatus: {
    method: 'GET',
    path: '/api/v1/events/status',
    parameters: [{ in: 'header', name: 'X-Selected-Client-Id', required: false }],
    body: 'none',
  },
  getHealth: { method: 'GET', path: '/api/v1/system/health', parameters: [], body: 'none' },
  getIntegration: {
    method: 'GET',
    path: '/api/v1/brands/{brand_id}/integrations/{integration_id}',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'integration_id', required: true },
    ],
    body: 'none',
  },
  getIntegrationOverview: {
    method: 'GET',
    path: '/api/v1/brands/{brand_id}/integrations',
    parameters: [{ in: 'path', name: 'brand_id', required: true }],
    body: 'none',
  },
  getIntegrationSpend: {
    method: 'GET',
    path: '/api/v1/brands/{brand_id}/integrations/{integration_id}/spend',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'integration_id', required: true },
      { in: 'query', name: 'days', required: false },
    ],
    body: 'none',
  },
  getJobResults: {
    method: 'GET',
    path: '/api/v1/dashboard/client/jobs/{job_id}/results',
    parameters: [
      { in: 'path', name: 'job_id', required: true },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'query', name: 'format', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getJobStatus: {
    method: 'GET',
    path: '/api/v1/dashboard/client/jobs/{job_id}/status',
    parameters: [
      { in: 'path', name: 'job_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getKpis: {
    method: 'GET',
    path: '/api/v1/dashboard/admin/kpis',
    parameters: [
      { in: 'query', name: 'refresh', required: false },
      { in: 'query', name: 'period', required: false },
      { in: 'query', name: 'from', required: false },
      { in: 'query', name: 'to', required: false },
      { in: 'query', name: 'country', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getLiveness: { method: 'GET', path: '/healthz', parameters: [], body: 'none' },
  getLogs: {
    method: 'GET',
    path: '/api/v1/dashboard/admin/logs',
    parameters: [
      { in: 'query', name: 'container', required: false },
      { in: 'query', name: 'level', required: false },
      { in: 'query', name: 'search', required: false },
      { in: 'query', name: 'minutes', required: false },
      { in: 'query', name: 'limit', required: false },
    ],
    body: 'none',
  },
  getMe: { method: 'GET', path: '/api/v1/dashboard/me', parameters: [], body: 'none' },
  getMedia: {
    method: 'GET',
    path: '/api/v1/idap/media/{media_id}',
    parameters: [
      { in: 'path', name: 'media_id', required: true },
      { in: 'query', name: 'thumb', required: false },
      { in: 'query', name: 'download', required: false },
      { in: 'header', name: 'If-None-Match', required: false },
      { in: 'header', name: 'If-Modified-Since', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getMobileSubscriptions: {
    method: 'GET',
    path: '/api/v1/dashboard/admin/mobile-subscriptions',
    parameters: [
      { in: 'query', name: 'refresh', required: false },
      { in: 'query', name: 'period', required: false },
      { in: 'query', name: 'from', required: false },
      { in: 'query', name: 'to', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getPage: {
    method: 'GET',
    path: '/api/v1/dashboard/content/pages/{page_id}',
    parameters: [
      { in: 'path', name: 'page_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getPost: {
    method: 'GET',
    path: '/api/v1/dashboard/content/posts/{post_id}',
    parameters: [
      { in: 'path', name: 'post_id', required: true },
      { in: 'query', name: 'format', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getProductAnalyticsMetrics: {
    method: 'GET',
    path: '/api/v1/dashboard/admin/product-analytics-metrics',
    parameters: [
      { in: 'query', name: 'refresh', required: false },
      { in: 'query', name: 'period', required: false },
      { in: 'query', name: 'from', required: false },
      { in: 'query', name: 'to', required: false },
      { in: 'query', name: 'country', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getProviderSpend: {
    method: 'GET',
    path: '/api/v1/brands/{brand_id}/integrations/spend/provider/{provider_name}',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'provider_name', required: true },
      { in: 'query', name: 'days', required: false },
    ],
    body: 'none',
  },
  getPublicPage: {
    method: 'GET',
    path: '/api/v1/content/pages/{slug}',
    parameters: [
      { in: 'header', name: 'If-None-Match', required: false },
      { in: 'path', name: 'slug', required: true },
    ],
    body: 'none',
  },
  getPublicPost: {
    method: 'GET',
    path: '/api/v1/content/posts/{slug}',
    parameters: [
      { in: 'header', name: 'If-None-Match', required: false },
      { in: 'path', name: 'slug', required: true },
      { in: 'query', name: 'format', required: false },
    ],
    body: 'none',
  },
  getQueueStats: { method: 'GET', path: '/api/v1/system/queue-stats', parameters: [], body: 'none' },
  getReadiness: { method: 'GET', path: '/readyz', parameters: [], body: 'none' },
  getResearchResults: {
    method: 'GET',
    path: '/api/v1/dashboard/client/research/{research_id}/results',
    parameters: [
      { in: 'path', name: 'research_id', required: true },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'query', name: 'format', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getResearchStatus: {
    method: 'GET',
    path: '/api/v1/dashboard/client/research/{research_id}/status',
    parameters: [
      { in: 'path', name: 'research_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getShiftDetail: {
    method: 'GET',
    path: '/api/v1/detail',
    parameters: [
      { in: 'query', name: 'actor_id', required: true },
      { in: 'query', name: 'started_at', required: true },
      { in: 'query', name: 'ended_at', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getSocialReport: {
    method: 'GET',
    path: '/api/v1/dashboard/admin/social',
    parameters: [
      { in: 'query', name: 'refresh', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getSystemInfo: { method: 'GET', path: '/api/v1/system/info', parameters: [], body: 'none' },
  getWatch: {
    method: 'GET',
    path: '/api/v1/dashboard/client/watches/{watch_id}',
    parameters: [
      { in: 'path', name: 'watch_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getWebAnalytics: {
    method: 'GET',
    path: '/api/v1/dashboard/admin/web-analytics',
    parameters: [
      { in: 'query', name: 'refresh', required: false },
      { in: 'query', name: 'period', required: false },
      { in: 'query', name: 'from', required: false },
      { in: 'query', name: 'to', required: false },
      { in: 'query', name: 'country', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  getWebhookSecret: {
    method: 'GET',
    path: '/api/v1/dashboard/webhook-secret',
    parameters: [{ in: 'header', name: 'X-Selected-Client-Id', required: false }],
    body: 'none',
  },
  listAccessRequests: {
    method: 'GET',
    path: '/api/v1/auth/pat/requests',
    parameters: [
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'query', name: 'status', required: false },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
    ],
    body: 'none',
  },
  listAccessTokens: {
    method: 'GET',
    path: '/api/v1/auth/pat/agents',
    parameters: [
      { in: 'query', name: 'client_id', required: false },
      { in: 'query', name: 'include_inactive', required: false },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
    ],
    body: 'none',
  },
  listAgentUsers: {
    method: 'GET',
    path: '/api/v1/brands/{brand_id}/agent-users',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'query', name: 'include_inactive', required: false },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
    ],
    body: 'none',
  },
  listAnomalies: {
    method: 'GET',
    path: '/api/v1/anomalies',
    parameters: [{ in: 'header', name: 'X-Selected-Client-Id', required: false }],
    body: 'none',
  },
  listAuthors: {
    method: 'GET',
    path: '/api/v1/dashboard/content/authors',
    parameters: [
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  listBrandMembers: {
    method: 'GET',
    path: '/api/v1/brands/{brand_id}/members',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
    ],
    body: 'none',
  },
  listBrands: {
    method: 'GET',
    path: '/api/v1/brands',
    parameters: [
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
    ],
    body: 'none',
  },
  listCategories: {
    method: 'GET',
    path: '/api/v1/dashboard/content/categories',
    parameters: [
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  listClients: {
    method: 'GET',
    path: '/api/v1/dashboard/admin/clients',
    parameters: [
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'query', name: 'is_active', required: false },
    ],
    body: 'none',
  },
  listCountries: { method: 'GET', path: '/api/v1/dashboard/client/locations/countries', parameters: [], body: 'none' },
  listDashboardUsers: {
    method: 'GET',
    path: '/api/v1/dashboard/users',
    parameters: [
      { in: 'query', name: 'role', required: false },
      { in: 'query', name: 'search', required: false },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
    ],
    body: 'none',
  },
  listIntegrations: {
    method: 'GET',
    path: '/api/v1/brands/{brand_id}/integrations/all',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'query', name: 'provider_name', required: false },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
    ],
    body: 'none',
  },
  listJobs: {
    method: 'GET',
    path: '/api/v1/dashboard/client/jobs',
    parameters: [
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'query', name: 'type_filter', required: false },
      { in: 'query', name: 'status_filter', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  listOutbox: {
    method: 'GET',
    path: '/api/v1/dev/outbox',
    parameters: [
      { in: 'query', name: 'channel', required: false },
      { in: 'query', name: 'to', required: false },
      { in: 'query', name: 'limit', required: false },
    ],
    body: 'none',
  },
  listPages: {
    method: 'GET',
    path: '/api/v1/dashboard/content/pages',
    parameters: [
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'query', name: 'status', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  listPosts: {
    method: 'GET',
    path: '/api/v1/dashboard/content/posts',
    parameters: [
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'query', name: 'status', required: false },
      { in: 'query', name: 'tag', required: false },
      { in: 'query', name: 'category', required: false },
      { in: 'query', name: 'author', required: false },
      { in: 'query', name: 'q', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  listProviderTemplates: {
    method: 'GET',
    path: '/api/v1/brands/{brand_id}/integrations/providers',
    parameters: [{ in: 'path', name: 'brand_id', required: true }],
    body: 'none',
  },
  listPublicAuthors: {
    method: 'GET',
    path: '/api/v1/content/authors',
    parameters: [
      { in: 'header', name: 'If-None-Match', required: false },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
    ],
    body: 'none',
  },
  listPublicCategories: {
    method: 'GET',
    path: '/api/v1/content/categories',
    parameters: [
      { in: 'header', name: 'If-None-Match', required: false },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
    ],
    body: 'none',
  },
  listPublicPages: {
    method: 'GET',
    path: '/api/v1/content/pages',
    parameters: [
      { in: 'header', name: 'If-None-Match', required: false },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
    ],
    body: 'none',
  },
  listPublicPosts: {
    method: 'GET',
    path: '/api/v1/content/posts',
    parameters: [
      { in: 'header', name: 'If-None-Match', required: false },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'query', name: 'tag', required: false },
      { in: 'query', name: 'category', required: false },
      { in: 'query', name: 'author', required: false },
      { in: 'query', name: 'featured', required: false },
    ],
    body: 'none',
  },
  listPublicTags: {
    method: 'GET',
    path: '/api/v1/content/tags',
    parameters: [
      { in: 'header', name: 'If-None-Match', required: false },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
    ],
    body: 'none',
  },
  listRegions: {
    method: 'GET',
    path: '/api/v1/dashboard/client/locations/regions',
    parameters: [{ in: 'query', name: 'country_code', required: true }],
    body: 'none',
  },
  listResearchJobs: {
    method: 'GET',
    path: '/api/v1/dashboard/client/research',
    parameters: [
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'query', name: 'status', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  listResources: {
    method: 'GET',
    path: '/api/v1/idap/{resource_type}',
    parameters: [
      { in: 'path', name: 'resource_type', required: true },
      { in: 'query', name: 'limit', required: false },
      { in: 'query', name: 'cursor', required: false },
      { in: 'query', name: 'modified_since', required: false },
      { in: 'query', name: 'flags', required: false },
      { in: 'query', name: 'fields', required: false },
      { in: 'query', name: 'format', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  listShifts: {
    method: 'GET',
    path: '/api/v1',
    parameters: [
      { in: 'query', name: 'date', required: false },
      { in: 'query', name: 'from', required: false },
      { in: 'query', name: 'to', required: false },
      { in: 'query', name: 'actor_id', required: false },
      { in: 'query', name: 'role', required: false },
      { in: 'query', name: 'gap_minutes', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  listTags: {
    method: 'GET',
    path: '/api/v1/dashboard/content/tags',
    parameters: [
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  listWatches: {
    method: 'GET',
    path: '/api/v1/dashboard/client/watches',
    parameters: [
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'query', name: 'state', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  listWatchRuns: {
    method: 'GET',
    path: '/api/v1/dashboard/client/watches/{watch_id}/runs',
    parameters: [
      { in: 'path', name: 'watch_id', required: true },
      { in: 'query', name: 'page', required: false },
      { in: 'query', name: 'page_size', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  login: { method: 'POST', path: '/api/v1/auth/login', parameters: [], body: 'required' },
  logout: { method: 'POST', path: '/api/v1/auth/logout', parameters: [], body: 'none' },
  pauseResearchJob: {
    method: 'POST',
    path: '/api/v1/dashboard/client/research/{research_id}/pause',
    parameters: [
      { in: 'path', name: 'research_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  pauseWatch: {
    method: 'POST',
    path: '/api/v1/dashboard/client/watches/{watch_id}/pause',
    parameters: [
      { in: 'path', name: 'watch_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  previewPin: {
    method: 'POST',
    path: '/api/v1/agent/preview-pin',
    parameters: [{ in: 'header', name: 'X-Brand-Id', required: false }],
    body: 'required',
  },
  proxyMaps: {
    method: 'POST',
    path: '/api/v1/agent/proxy/maps/{path}',
    parameters: [
      { in: 'path', name: 'path', required: true },
      { in: 'header', name: 'X-Brand-Id', required: false },
      { in: 'header', name: 'X-Country-Code', required: false },
    ],
    body: 'required',
  },
  proxyMessaging: {
    method: 'POST',
    path: '/api/v1/agent/proxy/messaging',
    parameters: [
      { in: 'header', name: 'X-Brand-Id', required: false },
      { in: 'header', name: 'X-Country-Code', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  proxyParcelTracking: {
    method: 'POST',
    path: '/api/v1/agent/proxy/parcel-tracking',
    parameters: [
      { in: 'header', name: 'X-Brand-Id', required: false },
      { in: 'header', name: 'X-Country-Code', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'required',
  },
  publishPage: {
    method: 'POST',
    path: '/api/v1/dashboard/content/pages/{page_id}/publish',
    parameters: [
      { in: 'path', name: 'page_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  publishPost: {
    method: 'POST',
    path: '/api/v1/dashboard/content/posts/{post_id}/publish',
    parameters: [
      { in: 'path', name: 'post_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  regenerateAgentToken: {
    method: 'POST',
    path: '/api/v1/brands/{brand_id}/agent-users/{agent_user_id}/regenerate',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'agent_user_id', required: true },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'none',
  },
  regenerateCredentials: {
    method: 'POST',
    path: '/api/v1/dashboard/credentials/regenerate',
    parameters: [{ in: 'header', name: 'Idempotency-Key', required: false }],
    body: 'none',
  },
  removeBrandMember: {
    method: 'DELETE',
    path: '/api/v1/brands/{brand_id}/members/{user_id}',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'user_id', required: true },
    ],
    body: 'none',
  },
  requestAccessToken: {
    method: 'POST',
    path: '/api/v1/auth/pat/request',
    parameters: [{ in: 'header', name: 'Idempotency-Key', required: false }],
    body: 'required',
  },
  requestAccessTokenByEmail: {
    method: 'POST',
    path: '/api/v1/auth/pat/request-by-email',
    parameters: [{ in: 'header', name: 'Idempotency-Key', required: false }],
    body: 'required',
  },
  requestPasswordReset: {
    method: 'POST',
    path: '/api/v1/auth/password-reset/request',
    parameters: [],
    body: 'required',
  },
  resetIntegrationUsage: {
    method: 'POST',
    path: '/api/v1/brands/{brand_id}/integrations/{integration_id}/reset-usage',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'integration_id', required: true },
    ],
    body: 'none',
  },
  resetPassword: { method: 'POST', path: '/api/v1/auth/password-reset', parameters: [], body: 'required' },
  resolvePin: {
    method: 'GET',
    path: '/api/v1/agent/resolve-pin',
    parameters: [
      { in: 'query', name: 'pin_id', required: true },
      { in: 'header', name: 'X-Brand-Id', required: false },
    ],
    body: 'none',
  },
  resolveSignup: { method: 'GET', path: '/api/v1/signup/resolve', parameters: [], body: 'none' },
  resumeResearchJob: {
    method: 'POST',
    path: '/api/v1/dashboard/client/research/{research_id}/resume',
    parameters: [
      { in: 'path', name: 'research_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  resumeWatch: {
    method: 'POST',
    path: '/api/v1/dashboard/client/watches/{watch_id}/resume',
    parameters: [
      { in: 'path', name: 'watch_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'X-Brand-Id', required: false },
    ],
    body: 'none',
  },
  revokeAccessToken: {
    method: 'DELETE',
    path: '/api/v1/auth/pat/{token_id}',
    parameters: [{ in: 'path', name: 'token_id', required: true }],
    body: 'none',
  },
  revokeAgentUser: {
    method: 'DELETE',
    path: '/api/v1/brands/{brand_id}/agent-users/{agent_user_id}',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'agent_user_id', required: true },
    ],
    body: 'none',
  },
  rotateWebhookSecret: {
    method: 'POST',
    path: '/api/v1/dashboard/webhook-secret/rotate',
    parameters: [
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'none',
  },
  searchMedia: {
    method: 'GET',
    path: '/api/v1/idap/media/search',
    parameters: [
      { in: 'query', name: 'q', required: false },
      { in: 'query', name: 'limit', required: false },
      { in: 'query', name: 'fields', required: false },
      { in: 'query', name: 'format', required: false },
      { in: 'query', name: 'flags', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  searchPins: {
    method: 'POST',
    path: '/api/v1/agent/search-pins',
    parameters: [{ in: 'header', name: 'X-Brand-Id', required: false }],
    body: 'required',
  },
  searchResources: {
    method: 'GET',
    path: '/api/v1/idap/{resource_type}/search',
    parameters: [
      { in: 'path', name: 'resource_type', required: true },
      { in: 'query', name: 'q', required: true },
      { in: 'query', name: 'limit', required: false },
      { in: 'query', name: 'fields', required: false },
      { in: 'query', name: 'format', required: false },
      { in: 'query', name: 'flags', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  setUserPassword: {
    method: 'POST',
    path: '/api/v1/dashboard/users/{user_id}/set-password',
    parameters: [{ in: 'path', name: 'user_id', required: true }],
    body: 'required',
  },
  streamEvents: {
    method: 'GET',
    path: '/api/v1/events/stream',
    parameters: [
      { in: 'header', name: 'Last-Event-ID', required: false },
      { in: 'query', name: 'last_event_id', required: false },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  submitMapsScrapeJob: {
    method: 'POST',
    path: '/api/v1/dashboard/client/jobs/maps-scrape/submit',
    parameters: [
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
      { in: 'header', name: 'X-Brand-Id', required: false },
    ],
    body: 'required',
  },
  submitResearchJob: {
    method: 'POST',
    path: '/api/v1/dashboard/client/research/submit',
    parameters: [
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
      { in: 'header', name: 'X-Brand-Id', required: false },
    ],
    body: 'required',
  },
  syncIntegrationBilling: {
    method: 'POST',
    path: '/api/v1/brands/{brand_id}/integrations/{integration_id}/sync-billing',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'integration_id', required: true },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'none',
  },
  testIntegration: {
    method: 'POST',
    path: '/api/v1/brands/{brand_id}/integrations/{integration_id}/test',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'integration_id', required: true },
    ],
    body: 'none',
  },
  triggerPasswordReset: {
    method: 'POST',
    path: '/api/v1/dashboard/users/{user_id}/trigger-reset',
    parameters: [
      { in: 'path', name: 'user_id', required: true },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'none',
  },
  triggerWatch: {
    method: 'POST',
    path: '/api/v1/dashboard/client/watches/{watch_id}/trigger',
    parameters: [
      { in: 'path', name: 'watch_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
      { in: 'header', name: 'Idempotency-Key', required: false },
    ],
    body: 'none',
  },
  unpublishPage: {
    method: 'POST',
    path: '/api/v1/dashboard/content/pages/{page_id}/unpublish',
    parameters: [
      { in: 'path', name: 'page_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  unpublishPost: {
    method: 'POST',
    path: '/api/v1/dashboard/content/posts/{post_id}/unpublish',
    parameters: [
      { in: 'path', name: 'post_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'none',
  },
  updateAccessTokenLimits: {
    method: 'PATCH',
    path: '/api/v1/auth/pat/{token_id}/limits',
    parameters: [{ in: 'path', name: 'token_id', required: true }],
    body: 'required',
  },
  updateAgentUserLimits: {
    method: 'PATCH',
    path: '/api/v1/brands/{brand_id}/agent-users/{agent_user_id}',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'agent_user_id', required: true },
    ],
    body: 'required',
  },
  updateAuthor: {
    method: 'PATCH',
    path: '/api/v1/dashboard/content/authors/{author_id}',
    parameters: [
      { in: 'path', name: 'author_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'required',
  },
  updateBrand: {
    method: 'PATCH',
    path: '/api/v1/brands/{brand_id}',
    parameters: [{ in: 'path', name: 'brand_id', required: true }],
    body: 'required',
  },
  updateBrandInformation: {
    method: 'PATCH',
    path: '/api/v1/brands/{brand_id}/information',
    parameters: [{ in: 'path', name: 'brand_id', required: true }],
    body: 'required',
  },
  updateBrandMember: {
    method: 'PATCH',
    path: '/api/v1/brands/{brand_id}/members/{user_id}',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'user_id', required: true },
    ],
    body: 'required',
  },
  updateBrandSettings: {
    method: 'PATCH',
    path: '/api/v1/brands/{brand_id}/settings',
    parameters: [{ in: 'path', name: 'brand_id', required: true }],
    body: 'required',
  },
  updateCategory: {
    method: 'PATCH',
    path: '/api/v1/dashboard/content/categories/{category_id}',
    parameters: [
      { in: 'path', name: 'category_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'required',
  },
  updateClient: {
    method: 'PATCH',
    path: '/api/v1/dashboard/admin/clients/{client_id}',
    parameters: [{ in: 'path', name: 'client_id', required: true }],
    body: 'required',
  },
  updateDashboardUser: {
    method: 'PATCH',
    path: '/api/v1/dashboard/users/{user_id}',
    parameters: [{ in: 'path', name: 'user_id', required: true }],
    body: 'required',
  },
  updateDigestSettings: {
    method: 'PATCH',
    path: '/api/v1/digest-settings',
    parameters: [{ in: 'header', name: 'X-Selected-Client-Id', required: false }],
    body: 'required',
  },
  updateIntegration: {
    method: 'PATCH',
    path: '/api/v1/brands/{brand_id}/integrations/{integration_id}',
    parameters: [
      { in: 'path', name: 'brand_id', required: true },
      { in: 'path', name: 'integration_id', required: true },
    ],
    body: 'required',
  },
  updatePage: {
    method: 'PATCH',
    path: '/api/v1/dashboard/content/pages/{page_id}',
    parameters: [
      { in: 'path', name: 'page_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'required',
  },
  updatePost: {
    method: 'PATCH',
    path: '/api/v1/dashboard/content/posts/{post_id}',
    parameters: [
      { in: 'path', name: 'post_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'required',
  },
  updateResourceFlags: {
    method: 'PATCH',
    path: '/api/v1/idap/{resource_type}/{resource_id}/flags',
    parameters: [
      { in: 'path', name: 'resource_type', required: true },
      { in: 'path', name: 'resource_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'required',
  },
  updateTag: {
    method: 'PATCH',
    path: '/api/v1/dashboard/content/tags/{tag_id}',
    parameters: [
      { in: 'path', name: 'tag_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'required',
  },
  updateWatch: {
    method: 'PATCH',
    path: '/api/v1/dashboard/client/watches/{watch_id}',
    parameters: [
      { in: 'path', name: 'watch_id', required: true },
      { in: 'header', name: 'X-Selected-Client-Id', required: false },
    ],
    body: 'required',
  },
  uploadBrandLogo: {
    method: 'POST',
    path: '/api/v1/brands/{brand_id}/logo',
    parameters: [{ in: 'path', name: 'brand_id', required: true }],
    body: 'required',
  },
  uploadContentMedia: {
    method: 'POST',
    path: '/api/v1/dashboard/content/media',
    parameters: [{ in: 'header', name: 'X-Selected-Client-Id', required: false }],
    body: 'required',
  },
};
