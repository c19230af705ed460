import { ClientModel } from './client.model';

/** A client as other areas see it: who it is and how to reach its administrator. */
export interface ClientProfile {
  client_id: string;
  name: string;
  admin_email: string;
  is_active: boolean;
  deploy_hook_url: string | null;
  created_at: Date;
}

const PROFILE_FIELDS = { name: 1, admin_email: 1, is_active: 1, deploy_hook_url: 1, created_at: 1 } as const;

type Stored = Omit<ClientProfile, 'client_id' | 'deploy_hook_url'> & { _id: string; deploy_hook_url?: string | null };
const profileOf = (doc: Stored | null): ClientProfile | null =>
  doc && {
    client_id: doc._id,
    name: doc.name,
    admin_email: doc.admin_email,
    is_active: doc.is_active,
    deploy_hook_url: doc.deploy_hook_url ?? null,
    created_at: doc.created_at,
  };

/**
 * What other areas read of the tenants (the clients area owns their records): a client's profile, whether it
 * exists or is active, the active client an administrator's address names, and the platform's client counts.
 */
export const clientDirectory = {
  async profile(clientId: string): Promise<ClientProfile | null> {
    return profileOf(await ClientModel.findById(clientId, PROFILE_FIELDS).lean<Stored>());
  },

  /** The active client whose administrator has this address (lower case), if any. */
  async activeByAdminEmail(email: string): Promise<ClientProfile | null> {
    return profileOf(await ClientModel.findOne({ admin_email: email, is_active: true }, PROFILE_FIELDS).lean<Stored>());
  },

  async exists(clientId: string): Promise<boolean> {
    return (await ClientModel.exists({ _id: clientId })) !== null;
  },

  async isActive(clientId: string): Promise<boolean> {
    return (await ClientModel.exists({ _id: clientId, is_active: true })) !== null;
  },

  /** Clients that existed before `before` (one, or all), and how many of them are active. */
  async counts(clientId: string | null, before: Date): Promise<{ clients: number; active_clients: number }> {
    const base = { ...(clientId ? { _id: clientId } : {}), created_at: { $lt: before } };
    const [clients, active_clients] = await Promise.all([
      ClientModel.countDocuments(base),
      ClientModel.countDocuments({ ...base, is_active: true }),
    ]);
    return { clients, active_clients };
  },
};

export type ClientDirectory = typeof clientDirectory;
