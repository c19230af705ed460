import { ADMIN, createClient, startTestApi, type TestApi } from '../support/harness';
import { capturedLogs } from '../support/log-capture';
import { approvalMail, approvedToken, linkOf } from '../agents/agent-helpers';

describe('request logs', () => {
  const { lines, destination: sink } = capturedLogs();
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({ LOG_LEVEL: 'info', ACCESS_REQUEST_RATE_PER_HOUR: '0' }, { logDestination: sink });
  });
  afterAll(() => api.stop());

  it('carry the request id and never a password, secret or token', async () => {
    const admin = await api.login();
    const client = await createClient(api, admin, 'Logged Co');
    const res = await api.call('GET', `/api/v1/dashboard/me?probe=1`, {
      token: client.triple,
      headers: { 'x-request-id': 'req-log-test-1' },
    });
    expect(res.headers.get('x-request-id')).toBe('req-log-test-1');
    const signupToken = 'signup-token-that-must-not-be-logged';
    await api.call('GET', `/api/v1/signup/resolve?token=${signupToken}`);

    const text = JSON.stringify(lines);
    for (const secret of [ADMIN.password, admin, client.api_secret, client.api_key, signupToken])
      expect(text).not.toContain(secret);
    const line = lines.find(
      (l) => l.request_id === 'req-log-test-1' || (l.req as { id?: string })?.id === 'req-log-test-1',
    );
    expect(line).toBeDefined();
    expect(lines.every((l) => typeof l.level === 'number' && typeof l.time === 'string')).toBe(true);
  });

  it('never carry an access token, poll token or approval token, not even in request URLs', async () => {
    const admin = await api.login();
    const client = await createClient(api, admin, 'Agent Logged');
    const { token, receipt } = await approvedToken(api, admin, client);
    const approvalToken = new URL(
      linkOf(await approvalMail(api, admin, client.admin_email, receipt.request_id), 'approve'),
    ).searchParams.get('approval_token')!;
    await api.call('GET', '/api/v1/auth/pat/status', { token });
    const text = JSON.stringify(lines);
    expect(text).toContain(`/api/v1/auth/pat/request/${receipt.request_id}/approve`); // the requests were logged
    for (const secret of [token, receipt.poll_token, approvalToken]) expect(text).not.toContain(secret);
  });
});
