import type { KeyRing } from '../lib/crypto';
import { AppError, isDuplicateKeyError } from '../lib/errors';
import type { RunLocked } from '../lib/locks';
import { newWebhookSecret } from '../lib/standard-webhooks';
import { ClientModel } from './client.model';
import { WebhookSecretModel, type WebhookSecretDoc } from './webhook-secret.model';

export interface WebhookSecretView {
  secret: string;
  created_at: string;
  /** Until when the secret this one replaced still signs deliveries beside it; null when none does. */
  previous_expires_at: string | null;
  overlap_seconds: number;
}

/**
 * The secret every delivery to a client's URLs is signed with (job and research webhooks, the deploy hook),
 * made on first use and rotatable: a rotation keeps the replaced secret signing beside the new one for
 * `overlapSeconds`, so a receiver can switch without losing a delivery. Read and rotated only through the
 * dashboard operations (never by an agent token); the worker unseals it to sign.
 */
export function createWebhookSecrets(deps: { ring: KeyRing; overlapSeconds: number; lock: RunLocked }) {
  const { ring } = deps;

  async function load(clientId: string): Promise<WebhookSecretDoc | null> {
    return WebhookSecretModel.findOne({ _id: clientId, client_id: clientId }).lean<WebhookSecretDoc>();
  }

  /** The client's secret document, made the first time (a unique insert: concurrent first uses agree on one). */
  async function ensure(clientId: string): Promise<WebhookSecretDoc> {
    const found = await load(clientId);
    if (found) return found;
    try {
      const doc = await WebhookSecretModel.create({
        _id: clientId,
        client_id: clientId,
        current_sealed: ring.encrypt(newWebhookSecret()),
        current_created_at: new Date(),
      });
      return doc.toObject() as WebhookSecretDoc;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      return (await load(clientId))!;
    }
  }

  const previousValid = (doc: WebhookSecretDoc, now: number) =>
    Boolean(doc.previous_sealed && doc.previous_expires_at && doc.previous_expires_at.getTime() > now);

  function view(doc: WebhookSecretDoc): WebhookSecretView {
    return {
      secret: ring.decrypt(doc.current_sealed),
      created_at: doc.current_created_at.toISOString(),
      previous_expires_at: previousValid(doc, Date.now()) ? doc.previous_expires_at!.toISOString() : null,
      overlap_seconds: deps.overlapSeconds,
    };
  }

  async function mustExist(clientId: string): Promise<void> {
    if (!(await ClientModel.exists({ _id: clientId }))) throw AppError.notFound('Client not found');
  }

  return {
    async read(clientId: string): Promise<WebhookSecretView> {
      await mustExist(clientId);
      return view(await ensure(clientId));
    },

    /**
     * A new secret; the current one signs beside it until now + overlap. A second rotation within the overlap
     * drops the oldest (at most two secrets sign at once). One rotation at a time per client (a Redis lock: the
     * devstack's FerretDB does not make a read-modify-write atomic).
     */
    async rotate(clientId: string): Promise<WebhookSecretView> {
      await mustExist(clientId);
      return deps.lock(`webhook-secret:${clientId}`, async () => {
        const doc = await ensure(clientId);
        const now = new Date();
        const next = {
          current_sealed: ring.encrypt(newWebhookSecret()),
          current_created_at: now,
          previous_sealed: ring.encrypt(ring.decrypt(doc.current_sealed)),
          previous_expires_at: new Date(now.getTime() + deps.overlapSeconds * 1000),
        };
        await WebhookSecretModel.updateOne({ _id: clientId, client_id: clientId }, { $set: next });
        return view({ ...doc, ...next });
      });
    },

    /** The secrets a delivery made now is signed with: the current one, then the replaced one during the overlap. */
    async signingSecrets(clientId: string, now = Date.now()): Promise<string[]> {
      const doc = await ensure(clientId);
      const secrets = [ring.decrypt(doc.current_sealed)];
      if (previousValid(doc, now)) secrets.push(ring.decrypt(doc.previous_sealed!));
      return secrets;
    },
  };
}

export type WebhookSecrets = ReturnType<typeof createWebhookSecrets>;
