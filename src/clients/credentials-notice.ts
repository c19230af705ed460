import type { Logger } from '../lib/logger';
import type { Notifier } from '../notifications/notifier';
import type { Caller } from '../lib/tenancy';

/** Who regenerated a client's credentials, and from where: what its administrator is told. */
export interface Regeneration {
  caller: Caller;
  /** The caller's address as the API saw it (the client's own, behind a trusted proxy). */
  address: string;
}

export function describeCaller(caller: Caller): string {
  if (caller.kind === 'user') return `${caller.email ?? 'a dashboard user'} (dashboard user, ${caller.role})`;
  if (caller.kind === 'client') return "the client's own credential triple (api_key and api_secret)";
  return 'an agent access token';
}

/**
 * Any dashboard user of a client, and its triple, may regenerate the triple (the contract keeps it so), and the
 * triple acts for every brand: so the client's administrator hears of each regeneration at once, by e-mail,
 * with who did it, when and from which address. The message goes through the durable delivery workflow; if it
 * cannot even be handed over, the new credentials are still answered (they are shown only once) and the failure
 * is logged (the activity log records the regeneration either way).
 */
export async function noticeRegeneration(
  deps: { notifier: Notifier; logger: Logger },
  client: { _id: string; name: string; admin_email: string },
  by: Regeneration,
  at: Date,
): Promise<void> {
  const who = describeCaller(by.caller);
  const when = at.toISOString();
  const text = [
    `The API credentials of ${client.name} were regenerated.`,
    '',
    `By: ${who}`,
    `When: ${when}`,
    `From address: ${by.address}`,
    '',
    'The previous api_key and api_secret stopped working at once; whatever used them needs the new ones.',
    'The credential triple acts as the client in every brand, and any dashboard user of the client may',
    'regenerate it. If you did not expect this, sign in, regenerate the credentials again, and review who',
    "are the client's dashboard users.",
  ].join('\n');
  try {
    await deps.notifier.send(`credentials-regenerated-${client._id}-${at.getTime()}`, {
      channel: 'email',
      to: client.admin_email,
      subject: `${client.name}: API credentials regenerated`,
      text,
    });
  } catch (err) {
    deps.logger.error(
      { err: (err as Error).message, client_id: client._id },
      'credentials regenerated, but the notice to the client administrator could not be handed over',
    );
  }
}
