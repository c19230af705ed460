import { useState } from 'react';

/** A random UUID (v4), also where crypto.randomUUID is missing (a page served over plain HTTP off localhost). */
function uuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The Idempotency-Key of a submission: a fresh key per attempt, the same key when the same request is sent again
 * after it failed (a retry: the API answers the job already stored instead of queuing another), a new one once the
 * request changed or succeeded.
 */
export function useIdempotencyKey() {
  const [attempt, setAttempt] = useState<{ key: string; body: string | null }>(() => ({ key: uuid(), body: null }));
  return {
    key: attempt.key,
    /** The key for sending `body` now. */
    keyFor(body: unknown): string {
      const json = JSON.stringify(body);
      const key = attempt.body === null || attempt.body === json ? attempt.key : uuid();
      setAttempt({ key, body: json });
      return key;
    },
    succeeded: () => setAttempt({ key: uuid(), body: null }),
  };
}
