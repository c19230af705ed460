import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * What `login` and `token request` keep for later commands: the service's URL, the credential for it, and the device
 * cookie its last login set (sent back at the next login, so that others' failed logins do not lock this one out).
 */
export interface StoredLogin {
  url?: string;
  token?: string;
  device?: string;
}

const originOf = (url: string | undefined) => {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};

/**
 * What was kept when `url` is the service it was kept for (same origin: scheme, host and port), else nothing: a
 * credential or a device cookie is never sent to another service, whatever --url or LEAD_SERVICE_URL names.
 */
export function storedFor(stored: StoredLogin, url: string): StoredLogin {
  const keptFor = originOf(stored.url);
  return keptFor && keptFor === originOf(url) ? stored : {};
}

/** The kept credential when `url` is the service it was kept for, else undefined. */
export const storedTokenFor = (stored: StoredLogin, url: string): string | undefined => storedFor(stored, url).token;

/** $LEAD_SERVICE_CONFIG, else lead-service/config.json under $XDG_CONFIG_HOME (~/.config). */
export function configPath(env = process.env): string {
  if (env.LEAD_SERVICE_CONFIG) return env.LEAD_SERVICE_CONFIG;
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'lead-service', 'config.json');
}

export function readLogin(file: string): StoredLogin {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as StoredLogin;
  } catch {
    return {};
  }
}

/** Written readable by its owner only: it holds a credential. */
export function saveLogin(file: string, login: StoredLogin): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}
