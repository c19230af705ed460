import { request, type Answer, type Tenant } from './workload';

/** A pin reserved by confirm-pin, with the signup token its SMS link carries, and every completion answer. */
export interface Claim {
  pin_id: string;
  name: string;
  reservation_id: string;
  token: string;
  completions: Answer[];
}

let phone = 31_650_000_000 + Math.floor(Math.random() * 9_000_000);

/** Reserves `count` names for the brand (the tenant's triple names it) and reads each signup link from the outbox. */
export async function reserveClaims(
  base: string,
  admin: string,
  tenant: Tenant,
  brandId: string,
  tag: string,
  count: number,
): Promise<Claim[]> {
  const claims: Claim[] = [];
  for (let i = 0; i < count; i++) {
    const name = `FAULT-${tag.toUpperCase()}-${i}`;
    const identifier = `+${phone++}`;
    const res = await request(base, 'POST', '/api/v1/agent/confirm-pin', {
      token: tenant.triple,
      headers: { 'x-brand-id': brandId },
      body: { country_code: 'NL', channel: 'sms', name, identifier },
    });
    if (res.status !== 202) throw new Error(`confirm-pin ${name}: ${res.status} ${JSON.stringify(res.body)}`);
    const outbox = await request(base, 'GET', `/api/v1/dev/outbox?channel=sms&to=${encodeURIComponent(identifier)}`, {
      token: admin,
    });
    const link = (outbox.body?.messages ?? [])
      .flatMap((m: { links: string[] }) => m.links)
      .find((l: string) => l.includes('/signup?token='));
    if (!link) throw new Error(`no signup link for ${name}: ${outbox.status} ${JSON.stringify(outbox.body)}`);
    claims.push({
      pin_id: `NL:${name}`,
      name,
      reservation_id: res.body.reservation_id,
      token: new URL(link).searchParams.get('token')!,
      completions: [],
    });
  }
  return claims;
}

/** The end user's completion of a claim, as the signup page sends it; the answer is kept on the claim. */
export async function completeClaim(base: string, claim: Claim): Promise<Answer> {
  const answer = await request(base, 'POST', '/api/v1/signup/complete', {
    body: {
      token: claim.token,
      name: claim.name,
      country_code: 'NL',
      lat: 51.4988,
      lng: 3.6109,
      structured_address: { address_road: 'Markt', address_house_number: '1', address_settlement: 'Middelburg' },
    },
  });
  claim.completions.push(answer);
  return answer;
}

export const acknowledged = (claim: Claim) => claim.completions.some((a) => a.status === 202);
