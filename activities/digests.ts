import type { RunLocked } from '../src/lib/locks';
import { dueDigests, markDigestSent, prepareDigest, type DueDigest } from '../src/activity/digest';

export interface DigestDeps {
  /** The per-client settings lock (the API's cadence changes take the same one). */
  lock: RunLocked;
}

export function createDigestActivities(deps: { digests: DigestDeps }) {
  return {
    dueDigests: () => dueDigests(),
    prepareDigest: (d: DueDigest) => prepareDigest(d),
    markDigestSent: (d: DueDigest) => markDigestSent(deps.digests.lock, d),
  };
}
