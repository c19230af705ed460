/** A message to deliver; `id` makes delivery idempotent across activity retries. */
export interface OutboundMessage {
  id: string;
  channel: 'email' | 'sms';
  to: string;
  subject?: string;
  text: string;
  html?: string;
}

const URL_PATTERN = /https?:\/\/[^\s"'<>)]+/g;

/** Every URL in a message, in order, without duplicates (what a person could click). */
export function linksIn(...parts: (string | undefined)[]): string[] {
  return [...new Set(parts.flatMap((p) => p?.match(URL_PATTERN) ?? []))];
}
