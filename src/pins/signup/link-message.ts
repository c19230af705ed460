import { escapeHtml as h } from '../../lib/html';
import type { OutboundMessage } from '../../notifications/message';

/** The signup link's message: short for SMS, with a subject and HTML for e-mail. */
export function signupLinkMessage(input: {
  channel: 'sms' | 'email';
  to: string;
  name: string;
  country_code: string;
  link: string;
  expires_at: Date;
}): Omit<OutboundMessage, 'id'> {
  const until = input.expires_at.toISOString().replace('T', ' ').slice(0, 16);
  const pin = `${input.country_code}:${input.name}`;
  const text = `Your pin ${pin} is reserved until ${until} UTC. Complete it here: ${input.link}`;
  if (input.channel === 'sms') return { channel: 'sms', to: input.to, text };
  return {
    channel: 'email',
    to: input.to,
    subject: `Complete your pin ${pin}`,
    text,
    html: `<p>Your pin <strong>${h(pin)}</strong> is reserved for you until ${h(until)} UTC.</p>
<p><a href="${h(input.link)}">Complete your pin</a></p>
<p>If you did not ask for this, ignore this message: the reservation lapses by itself.</p>`,
  };
}
