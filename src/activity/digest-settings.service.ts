import type { RunLocked } from '../lib/locks';
import { iso } from '../lib/ids';
import { DigestSettingsModel, type Cadence, type DigestSettingsDoc } from './digest-settings.model';
import { nextDueAt } from './digest-timing';

export const settingsLockName = (clientId: string) => `digest-settings:${clientId}`;

export async function loadDigestSettings(
  clientId: string,
  clientCreatedAt: Date,
): Promise<Omit<DigestSettingsDoc, '_id'>> {
  const doc = await DigestSettingsModel.findOne({ _id: clientId, client_id: clientId }).lean<DigestSettingsDoc>();
  return doc ?? { client_id: clientId, cadence: 'off', last_sent_at: null, updated_at: clientCreatedAt };
}

export function digestSettingsView(s: Omit<DigestSettingsDoc, '_id'>, now = new Date()) {
  return {
    cadence: s.cadence,
    last_sent_at: iso(s.last_sent_at),
    next_due_at: iso(nextDueAt(s, now)),
    updated_at: iso(s.updated_at)!,
  };
}

/**
 * Sets the cadence; a different cadence clears last_sent_at, so the next hourly tick sends. Under the
 * client's settings lock, so a digest being marked sent cannot interleave with the change.
 */
export async function changeCadence(lock: RunLocked, clientId: string, clientCreatedAt: Date, cadence: Cadence) {
  return lock(settingsLockName(clientId), async () => {
    const current = await loadDigestSettings(clientId, clientCreatedAt);
    if (current.cadence === cadence) return digestSettingsView(current);
    const next = { client_id: clientId, cadence, last_sent_at: null, updated_at: new Date() };
    await DigestSettingsModel.updateOne({ _id: clientId, client_id: clientId }, { $set: next }, { upsert: true });
    return digestSettingsView(next);
  });
}
