import type { JsonAnswer, JsonBody, QueryParams } from '../lib/contract-types';
import { AppError, isDuplicateKeyError } from '../lib/errors';
import { SecretBox, randomToken, safeEqual, sha256 } from '../lib/crypto';
import { iso } from '../lib/ids';
import { findPage, pageEnvelope, type Page } from '../lib/pagination';
import { ClientModel, ContentDomainModel, type ClientDoc } from './client.model';
import { newId } from '../lib/ids';
import { noticeRegeneration, type Regeneration } from './credentials-notice';
import { ownJobLimits, type ClientJobLimits } from './client-job-limits';

export interface ClientCredentials {
  client_id: string;
  api_key: string;
  api_secret: string;
  regenerated_at?: string;
}

export function toClient(doc: ClientDoc) {
  return {
    client_id: doc._id,
    name: doc.name,
    content_domains: doc.content_domains,
    admin_email: doc.admin_email,
    is_active: doc.is_active,
    deploy_hook_url: doc.deploy_hook_url ?? null,
    has_encrypted_credentials: Boolean(doc.credentials_encrypted),
    job_limits: ownJobLimits(doc as { job_limits?: ClientJobLimits }),
    created_at: iso(doc.created_at),
    updated_at: iso(doc.updated_at),
  };
}

function newSecrets(box: SecretBox) {
  const api_key = randomToken('lk_', 18);
  const api_secret = randomToken('lsk_', 32);
  return {
    plain: { api_key, api_secret },
    stored: {
      api_key_hash: sha256(api_key),
      api_secret_hash: sha256(api_secret),
      credentials_encrypted: box.encrypt(JSON.stringify({ api_key, api_secret })),
    },
  };
}

const normaliseDomains = (domains: string[] | undefined) =>
  domains === undefined ? undefined : [...new Set(domains.map((d) => d.trim().toLowerCase()))];

/** Claims domains for a client; all or none (a domain held by another client is a conflict). */
async function claimDomains(clientId: string, domains: string[]): Promise<void> {
  const held = await ContentDomainModel.find({ _id: { $in: domains } }).lean<{ _id: string; client_id: string }[]>();
  const toInsert = domains.filter((d) => !held.some((h) => h._id === d && h.client_id === clientId));
  const claimed: string[] = [];
  try {
    for (const domain of toInsert) {
      await ContentDomainModel.create({ _id: domain, client_id: clientId });
      claimed.push(domain);
    }
  } catch (err) {
    await ContentDomainModel.deleteMany({ _id: { $in: claimed } });
    if (isDuplicateKeyError(err)) throw AppError.conflict('A content domain is already used by another client');
    throw err;
  }
}

/**
 * `invalidateCredentials`: after a write that may take a triple's access away (deactivation, rotated secrets).
 * `noticeDeps`: how the client's administrator hears of a regeneration. `invalidateJobLimits`: after a change of a
 * client's job limits, which every process caches (client-job-limits.ts).
 */
export function createClientsService(
  box: SecretBox,
  invalidateCredentials: () => Promise<void>,
  noticeDeps: Parameters<typeof noticeRegeneration>[0],
  invalidateJobLimits: () => Promise<void> = async () => undefined,
) {
  return {
    async create(input: JsonBody<'createClient'>) {
      const secrets = newSecrets(box);
      const clientId = newId();
      const domains = normaliseDomains(input.content_domains) ?? [];
      await claimDomains(clientId, domains);
      const doc = await ClientModel.create({
        _id: clientId,
        name: input.name,
        content_domains: domains,
        admin_email: input.admin_email.toLowerCase(),
        deploy_hook_url: input.deploy_hook_url ?? null,
        ...secrets.stored,
      });
      return { ...toClient(doc.toObject() as ClientDoc), ...secrets.plain };
    },

    async list(filter: Pick<QueryParams<'listClients'>, 'is_active'>, page: Page) {
      const query = filter.is_active === undefined ? {} : { is_active: filter.is_active };
      const { docs, total } = await findPage<ClientDoc>(ClientModel, { filter: query, sort: { created_at: -1 } }, page);
      return pageEnvelope('clients', docs.map(toClient), total, page);
    },

    async update(
      clientId: string,
      /** job_limits: the fields given are set (null: back to the deployment's default); the others stay. */
      patch: JsonBody<'updateClient'>,
    ) {
      if (!(await ClientModel.exists({ _id: clientId }))) throw AppError.notFound('Client not found');
      const domains = normaliseDomains(patch.content_domains);
      if (domains) {
        await claimDomains(clientId, domains);
        await ContentDomainModel.deleteMany({ client_id: clientId, _id: { $nin: domains } });
      }
      const { job_limits: limits, ...rest } = patch;
      const limitFields = Object.fromEntries(Object.entries(limits ?? {}).map(([f, v]) => [`job_limits.${f}`, v]));
      const update = { ...rest, ...(domains ? { content_domains: domains } : {}), ...limitFields };
      const doc = await ClientModel.findByIdAndUpdate(
        clientId,
        { $set: update },
        { returnDocument: 'after' },
      ).lean<ClientDoc>();
      if (patch.is_active !== undefined) await invalidateCredentials();
      if (limits) await invalidateJobLimits();
      return toClient(doc!);
    },

    /**
     * Issues a new key and secret for a client; the old ones stop working at once, and the client's administrator
     * is told who did it, when and from where.
     */
    async regenerate(clientId: string, by: Regeneration): Promise<ClientCredentials> {
      const secrets = newSecrets(box);
      const doc = await ClientModel.findByIdAndUpdate(clientId, secrets.stored, {
        returnDocument: 'after',
      }).lean<ClientDoc>();
      if (!doc) throw AppError.notFound('Client not found');
      await invalidateCredentials();
      const at = new Date();
      await noticeRegeneration(noticeDeps, doc, by, at);
      return { client_id: doc._id, ...secrets.plain, regenerated_at: at.toISOString() };
    },

    /** Whether the client exists and is active (a deactivated client's scheduled work does nothing). */
    async isActive(clientId: string): Promise<boolean> {
      return Boolean(await ClientModel.exists({ _id: clientId, is_active: true }));
    },

    /** Verifies a credential triple in constant time; null when anything does not match. */
    async verifyTriple(clientId: string, apiKey: string, apiSecret: string): Promise<ClientDoc | null> {
      const doc = await ClientModel.findById(clientId).lean<ClientDoc>(); // an engine error is a 503, never a 401
      if (!doc || !doc.is_active) return null;
      const keyOk = safeEqual(sha256(apiKey), doc.api_key_hash);
      const secretOk = safeEqual(sha256(apiSecret), doc.api_secret_hash);
      return keyOk && secretOk ? doc : null;
    },

    /** The content domains a client serves (X-Content-Domain values of its public reads); empty for none. */
    async contentDomainsOf(clientId: string): Promise<string[]> {
      const doc = await ClientModel.findById(clientId, { content_domains: 1 }).lean<
        Pick<ClientDoc, 'content_domains'>
      >();
      return doc?.content_domains ?? [];
    },

    /** The active client that serves a content domain (X-Content-Domain), or null. */
    async byContentDomain(domain: string): Promise<ClientDoc | null> {
      const entry = await ContentDomainModel.findById(domain.trim().toLowerCase()).lean<{ client_id: string }>();
      if (!entry) return null;
      return ClientModel.findOne({ _id: entry.client_id, is_active: true }).lean<ClientDoc>();
    },

    async credentialHealth(): Promise<JsonAnswer<'getCredentialHealth', 200>> {
      const [active_clients, missing_encrypted_credentials] = await Promise.all([
        ClientModel.countDocuments({ is_active: true }),
        ClientModel.countDocuments({
          is_active: true,
          $or: [{ credentials_encrypted: null }, { credentials_encrypted: { $exists: false } }],
        }),
      ]);
      return {
        active_clients,
        missing_encrypted_credentials,
        status: missing_encrypted_credentials === 0 ? 'ok' : 'attention',
        checked_at: new Date().toISOString(),
      };
    },
  };
}

export type ClientsService = ReturnType<typeof createClientsService>;
