import { createHash } from 'node:crypto';
import { claimOnce, isClaimed } from '../lib/claims';
import { escapeHtml } from '../lib/html';
import type { RunLocked } from '../lib/locks';
import { clientDirectory } from '../clients/client-directory';
import { userDirectory } from '../users/user-directory';
import type { OutboundMessage } from '../notifications/message';
import { SHIPPED_KINDS, type ShippedKind } from './activity-event.model';
import { DigestSettingsModel, type DigestSettingsDoc } from './digest-settings.model';
import { digestPeriod, isDue } from './digest-timing';
import { settingsLockName } from './digest-settings.service';
import { buildShifts, type ShiftEvent } from './shifts';
import { eventsBetween } from './shifts.service';
import { anomalyReport, type Anomaly } from './anomalies';

export interface DueDigest {
  client_id: string;
  cadence: 'daily' | 'weekly';
  period: string;
}

const claimKey = (d: DueDigest) => `digest:${d.client_id}:${d.period}`;
const SHIPPED_WORDS: Record<ShippedKind, string> = {
  posts_published: 'Posts published',
  pages_published: 'Pages published',
  jobs_completed: 'Jobs completed',
  research_completed: 'Research completed',
  pins_claimed: 'Pins claimed',
};

/** The clients whose digest is due at `now` (cadence on, nothing sent for the current slot). */
export async function dueDigests(now = new Date()): Promise<DueDigest[]> {
  const all = await DigestSettingsModel.find({ cadence: { $in: ['daily', 'weekly'] } }, null, {
    allTenants: true,
  }).lean<DigestSettingsDoc[]>();
  return all
    .filter((s) => isDue(s, now))
    .map((s) => ({
      client_id: s.client_id,
      cadence: s.cadence as DueDigest['cadence'],
      period: digestPeriod(s.cadence as DueDigest['cadence'], now).key,
    }));
}

/** Who receives a client's digest: its admin_email and its active brand_admin users. */
async function recipients(clientId: string, adminEmail: string): Promise<string[]> {
  const admins = await userDirectory.activeBrandAdmins(clientId);
  return [...new Set([adminEmail, ...admins.map((a) => a.email)].map((e) => e.toLowerCase()))].sort();
}

function render(
  clientName: string,
  label: string,
  shifts: ReturnType<typeof buildShifts>,
  shipped: Record<ShippedKind, { label: string; at: Date }[]>,
  anomalies: Anomaly[],
) {
  const text: string[] = [`Activity digest for ${clientName}, ${label}`, '', `Shifts (${shifts.length}):`];
  const html: string[] = [
    `<h1>Activity digest for ${escapeHtml(clientName)}</h1><p>${escapeHtml(label)}</p>`,
    `<h2>Shifts (${shifts.length})</h2><ul>`,
  ];
  for (const s of shifts) {
    const line =
      `${s.actor_name ?? s.actor_id} (${s.role}): ${s.started_at} to ${s.ended_at}, ` +
      `${s.duration_minutes} min, ${s.event_count} events, ${s.shipped_count} shipped`;
    text.push(`- ${line}`);
    html.push(`<li>${escapeHtml(line)}</li>`);
  }
  html.push('</ul><h2>Shipped</h2>');
  text.push('', 'Shipped:');
  for (const kind of SHIPPED_KINDS) {
    const items = shipped[kind];
    text.push(`${SHIPPED_WORDS[kind]}: ${items.length}`, ...items.map((i) => `- ${i.label} (${i.at.toISOString()})`));
    html.push(
      `<h3>${SHIPPED_WORDS[kind]}: ${items.length}</h3>`,
      items.length ? `<ul>${items.map((i) => `<li>${escapeHtml(i.label)}</li>`).join('')}</ul>` : '',
    );
  }
  text.push('', `Anomalies (${anomalies.length}):`, ...anomalies.map((a) => `- [${a.severity}] ${a.message}`));
  html.push(
    `<h2>Anomalies (${anomalies.length})</h2><ul>`,
    ...anomalies.map((a) => `<li>[${escapeHtml(a.severity)}] ${escapeHtml(a.message)}</li>`),
    '</ul>',
  );
  return { text: text.join('\n'), html: html.join('') };
}

/**
 * The digest e-mails of one client and period, one per recipient, each with an id derived from client,
 * period and recipient (the delivery workflow's id, so a second start of the same send is refused).
 * Empty when this period's digest was already sent.
 */
export async function prepareDigest(d: DueDigest, now = new Date()): Promise<OutboundMessage[]> {
  if (await isClaimed(claimKey(d))) return [];
  const client = await clientDirectory.profile(d.client_id);
  if (!client || client.is_active === false) return [];
  const period = digestPeriod(d.cadence, now);
  const events = await eventsBetween<keyof ShiftEvent | 'label'>(d.client_id, period.start, period.end, {
    _id: 0,
    actor_id: 1,
    actor_kind: 1,
    actor_name: 1,
    role: 1,
    shipped: 1,
    label: 1,
    at: 1,
  });
  const shifts = buildShifts(events as ShiftEvent[], 30, period.start, period.end);
  for (const s of shifts) if (s.actor_kind === 'client') s.actor_name = client.name;
  const shipped = Object.fromEntries(SHIPPED_KINDS.map((k) => [k, [] as { label: string; at: Date }[]])) as Record<
    ShippedKind,
    { label: string; at: Date }[]
  >;
  for (const e of events as (ShiftEvent & { label: string | null })[])
    if (e.shipped) shipped[e.shipped].push({ label: e.label ?? '(untitled)', at: e.at });
  const { anomalies } = await anomalyReport(d.client_id, now);
  const minute = (at: Date) => `${at.toISOString().slice(0, 16)}Z`;
  const label = `${d.cadence} digest, ${minute(period.start)} to ${minute(period.end)}`;
  const body = render(client.name, label, shifts, shipped, anomalies);
  const to = await recipients(d.client_id, client.admin_email);
  return to.map((address) => ({
    id: `digest-${d.client_id}-${d.period}-${createHash('sha256').update(address).digest('hex').slice(0, 16)}`,
    channel: 'email' as const,
    to: address,
    subject: `Activity digest: ${client.name} (${d.period})`,
    ...body,
  }));
}

/** Records that the period's digest went out: the once-only claim, then last_sent_at (under the settings lock). */
export async function markDigestSent(lock: RunLocked, d: DueDigest, now = new Date()): Promise<void> {
  await claimOnce(claimKey(d));
  await lock(settingsLockName(d.client_id), async () => {
    // A cadence changed meanwhile keeps its reset: only the cadence that was sent is marked.
    await DigestSettingsModel.updateOne(
      { _id: d.client_id, client_id: d.client_id, cadence: d.cadence },
      { $set: { last_sent_at: now } },
    );
  });
}
