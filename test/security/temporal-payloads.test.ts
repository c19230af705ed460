import { Client, Connection, WorkflowUpdateFailedError } from '@temporalio/client';
import { AccessRequestModel } from '../../src/agents/access-request.model';
import {
  INVALID_DECISION,
  accessRequestWorkflowId,
  approvalEmailWorkflowId,
  decideUpdate,
  type Approver,
  type Verdict,
} from '../../workflows/access-request-api';
import { createClient, eventually, useTestApi } from '../support/harness';
import { approvalMail, decideByLink, linkOf, pollUntil, requestAccess } from '../agents/agent-helpers';

type RawPayload = { metadata?: Record<string, Uint8Array>; data?: Uint8Array };

/** Every payload in a workflow's history, as Temporal stores it (read without the service's codec). */
async function storedPayloads(address: string, workflowId: string): Promise<RawPayload[]> {
  const connection = await Connection.connect({ address });
  try {
    const history = await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
    const found: RawPayload[] = [];
    const walk = (value: unknown): void => {
      if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
      const v = value as Record<string, unknown>;
      if (Array.isArray(v.payloads)) found.push(...(v.payloads as RawPayload[]));
      Object.values(v).forEach(walk);
    };
    walk(history);
    return found;
  } finally {
    await connection.close();
  }
}

const encodingOf = (p: RawPayload) => Buffer.from(p.metadata?.encoding ?? []).toString();
const base64 = (b: Uint8Array | undefined) => Buffer.from(b ?? []).toString('base64');

describe('secrets never sit in clear in Temporal history', () => {
  const UI = 'http://127.0.0.1:18233';
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0', TEMPORAL_UI_URL: UI });

  it('the approval mail run keeps its links encrypted; the codec endpoint opens them for super_admin', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Sealed History');
    const receipt = await requestAccess(ctx.api, client.client_id);
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    const approvalToken = new URL(mail.links[0]).searchParams.get('approval_token')!;

    const request = accessRequestWorkflowId(receipt.request_id);
    const workflowIds = [request, approvalEmailWorkflowId(request, 0)];
    const payloads = (
      await Promise.all(workflowIds.map((id) => storedPayloads(ctx.api.rt.temporalAddress, id)))
    ).flat();
    expect(payloads.length).toBeGreaterThan(0);
    expect(new Set(payloads.map(encodingOf))).toEqual(new Set(['binary/encrypted']));
    const stored = Buffer.concat(payloads.map((p) => Buffer.from(p.data ?? []))).toString('latin1');
    expect(stored).not.toContain(approvalToken);
    expect(stored).not.toContain(client.admin_email);

    // The Temporal UI's codec endpoint: the same bytes, decrypted, for a signed-in super_admin only.
    const body = {
      payloads: payloads.map((p) => ({
        metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, base64(v)])),
        data: base64(p.data),
      })),
    };
    const decoded = await ctx.api.call('POST', '/api/v1/system/temporal-codec/decode', { token: ctx.admin, body });
    expect(decoded.status).toBe(200);
    const clear = decoded.body.payloads
      .map((p: { data: string }) => Buffer.from(p.data, 'base64').toString())
      .join('\n');
    expect(clear).toContain(approvalToken);
    const encodings = decoded.body.payloads.map((p: { metadata: Record<string, string> }) =>
      Buffer.from(p.metadata.encoding, 'base64').toString(),
    );
    expect(encodings).toContain('json/plain');
    expect(encodings).not.toContain('binary/encrypted');

    expect((await ctx.api.call('POST', '/api/v1/system/temporal-codec/decode', { body })).status).toBe(401);
    expect(
      (await ctx.api.call('POST', '/api/v1/system/temporal-codec/decode', { token: client.triple, body })).status,
    ).toBe(403);
    const altered = { payloads: [{ ...body.payloads[0], data: base64(Buffer.from('not what was sealed')) }] };
    expect(
      (await ctx.api.call('POST', '/api/v1/system/temporal-codec/decode', { token: ctx.admin, body: altered })).status,
    ).toBe(422);
  });

  it("encode and decode round-trip; the Temporal UI's origin (and no other) may call with credentials", async () => {
    const plain = {
      payloads: [
        { metadata: { encoding: base64(Buffer.from('json/plain')) }, data: base64(Buffer.from('{"secret":"s3cr3t"}')) },
      ],
    };
    const encoded = await ctx.api.call('POST', '/api/v1/system/temporal-codec/encode', {
      token: ctx.admin,
      body: plain,
    });
    expect(Buffer.from(encoded.body.payloads[0].data, 'base64').toString('latin1')).not.toContain('s3cr3t');
    const decoded = await ctx.api.call('POST', '/api/v1/system/temporal-codec/decode', {
      token: ctx.admin,
      body: encoded.body,
    });
    expect(decoded.body).toEqual(plain);

    const preflight = (origin: string) =>
      fetch(`${ctx.api.url}/api/v1/system/temporal-codec/decode`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, x-namespace',
        },
      });
    const allowed = await preflight(UI);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(UI);
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    const other = await preflight('http://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

const plainPayloads = (json: string) => ({
  payloads: [{ metadata: { encoding: base64(Buffer.from('json/plain')) }, data: base64(Buffer.from(json)) }],
});

describe('a payload that is not encrypted is refused', () => {
  const ctx = useTestApi({ ACCESS_REQUEST_RATE_PER_HOUR: '0' });
  const ADMIN_APPROVER: Approver = { email: null, role: 'client_admin', user_id: null };

  it('an Update sent in clear to Temporal (as anyone reaching its frontend could) decides nothing', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'Plain Update');
    const receipt = await requestAccess(ctx.api, client.client_id);
    const mail = await approvalMail(ctx.api, ctx.admin, client.admin_email, receipt.request_id);
    // A Temporal client without the service's codec: its payloads reach the worker as plain JSON.
    const connection = await Connection.connect({ address: ctx.api.rt.temporalAddress });
    try {
      const outsider = new Client({ connection }).workflow.getHandle(accessRequestWorkflowId(receipt.request_id));
      const sent = await outsider.executeUpdate(decideUpdate, { args: ['approved', ADMIN_APPROVER] }).then(
        () => 'decided',
        (err: Error) => `${err.message}: ${(err.cause as Error | undefined)?.message}`,
      );
      // The worker fails the workflow task that would run it; Temporal then refuses the Update.
      expect(sent).toMatch(/Workflow Task in failed state/);
    } finally {
      await connection.close();
    }
    expect(await AccessRequestModel.findById(receipt.request_id).lean()).toMatchObject({ status: 'pending' });
    // The administrator's own link still decides, once Temporal has retried the run's failed workflow task (which
    // no longer carries the refused Update); until then a decision is refused and decides nothing either.
    await eventually(
      async () => ((await decideByLink(linkOf(mail, 'approve'))).status === 200 ? true : undefined),
      60_000,
      500,
    );
    await pollUntil(ctx.api, receipt, (b) => b.status === 'approved');
  });

  it('an encrypted Update without the approver it is made as is refused, not decided as the admin', async () => {
    const client = await createClient(ctx.api, ctx.admin, 'No Approver');
    const receipt = await requestAccess(ctx.api, client.client_id);
    const handle = ctx.api.rt.engines.temporal.workflow.getHandle(accessRequestWorkflowId(receipt.request_id));
    const refused = await handle
      .executeUpdate(decideUpdate, { args: ['approved'] as unknown as [Verdict, Approver] })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refused as WorkflowUpdateFailedError).cause).toMatchObject({ type: INVALID_DECISION });
    expect((await ctx.api.call('GET', receipt.poll_url)).body).toMatchObject({ status: 'pending', access_token: null });
  });

  it('the codec endpoint refuses to decode a payload in clear (422 naming why)', async () => {
    const res = await ctx.api.call('POST', '/api/v1/system/temporal-codec/decode', {
      token: ctx.admin,
      body: plainPayloads('{"verdict":"approved"}'),
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toMatch(/not encrypted .*TEMPORAL_ACCEPT_PLAINTEXT_PAYLOADS/);
  });
});

describe('TEMPORAL_ACCEPT_PLAINTEXT_PAYLOADS=true, for histories written before encryption', () => {
  const ctx = useTestApi({ TEMPORAL_ACCEPT_PLAINTEXT_PAYLOADS: 'true' });

  it('reads payloads in clear as they are', async () => {
    const body = plainPayloads('{"older":"history"}');
    const res = await ctx.api.call('POST', '/api/v1/system/temporal-codec/decode', { token: ctx.admin, body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(body);
  });
});
