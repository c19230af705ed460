import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { AppError } from './errors';

/**
 * The one way the service calls a URL a caller chose: job and research webhooks, pin_created callbacks and
 * the deploy hook (operator-configured providers and relays are not caller-chosen and do not come here).
 *
 * Unless `allowPrivate` (OUTBOUND_ALLOW_PRIVATE=true, off unless set so, in every environment), the host is
 * resolved once, every address it resolves to is checked, and the connection goes to the checked address (the
 * socket's `lookup` answers it, so a second resolution cannot swap in another: no DNS rebinding). Loopback,
 * private, link-local, carrier-grade NAT, unspecified, multicast, reserved and cloud-metadata addresses are
 * refused, also when embedded in IPv6 (IPv4-mapped and -compatible, 6to4), and so are the NAT64 and Teredo
 * prefixes whole: a translator or relay on the path decides where those reach, not the address we checked.
 * Redirects are never followed: a 3xx is a failure.
 */
export interface OutboundPolicy {
  allowPrivate: boolean;
}

/** Private destinations only where OUTBOUND_ALLOW_PRIVATE=true says so: never by default, whatever NODE_ENV is. */
export function outboundPolicy(config: { OUTBOUND_ALLOW_PRIVATE?: boolean }): OutboundPolicy {
  return { allowPrivate: config.OUTBOUND_ALLOW_PRIVATE === true };
}

/**
 * Refused ranges, one BlockList per reason, checked in order: the first that holds the address names the
 * reason (metadata before the link-local range that holds it). A BlockList matches an IPv4 rule for the
 * IPv4-mapped form (::ffff:a.b.c.d) itself; the other two ways IPv6 carries IPv4, compatible (::a.b.c.d, ::/96)
 * and 6to4 (2002:AABB:CCDD::/48), get each IPv4 range added at its place inside them.
 */
type Reason = { reason: string; list: net.BlockList };

/** The two 16-bit words of an IPv4 address, as an IPv6 address writes them. */
function ipv4Words(address: string): string {
  const [a, b, c, d] = address.split('.').map(Number);
  return `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

function ranges(reason: string, v4: string[], v6: string[] = []): Reason {
  const list = new net.BlockList();
  for (const cidr of v4) {
    const [address, bits] = cidr.split('/');
    const prefix = Number(bits);
    list.addSubnet(address, prefix, 'ipv4');
    list.addSubnet(`::${ipv4Words(address)}`, 96 + prefix, 'ipv6');
    list.addSubnet(`2002:${ipv4Words(address)}::`, 16 + prefix, 'ipv6');
  }
  for (const cidr of v6) {
    const [address, bits] = cidr.split('/');
    list.addSubnet(address, Number(bits), 'ipv6');
  }
  return { reason, list };
}

const REFUSED: Reason[] = [
  ranges('cloud metadata', ['169.254.169.254/32'], ['fd00:ec2::254/128']),
  // ::/128 and ::1/128 before the IPv4-compatible ::/96 that holds them, so they are named as themselves.
  ranges('unspecified', [], ['::/128']),
  ranges('loopback', [], ['::1/128']),
  ranges('unspecified', ['0.0.0.0/8']),
  ranges('loopback', ['127.0.0.0/8']),
  ranges('private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'], ['fc00::/7']),
  ranges('carrier-grade NAT', ['100.64.0.0/10']),
  ranges('link-local', ['169.254.0.0/16'], ['fe80::/10']),
  ranges('IETF protocol assignment', ['192.0.0.0/24']),
  ranges('benchmarking', ['198.18.0.0/15']),
  ranges('multicast', ['224.0.0.0/4'], ['ff00::/8']),
  ranges('reserved', ['240.0.0.0/4']),
  ranges('site-local', [], ['fec0::/10']),
  // Translated or tunnelled: the IPv4 host they reach is chosen by a NAT64 gateway (RFC 6052, and RFC 8215's
  // local-use prefix, which may map anything) or hidden in a Teredo address, not by the address checked here.
  ranges('NAT64', [], ['64:ff9b::/96', '64:ff9b:1::/48']),
  ranges('Teredo', [], ['2001::/32']),
];

/** Why an address must not be called, or null when it may. */
export function forbiddenAddressReason(address: string): string | null {
  // Brackets (a URL's host) and an IPv6 zone id (fe80::1%eth0) are not part of the address checked.
  const plain = address.replace(/^\[|\]$/g, '').split('%')[0];
  const family = net.isIP(plain);
  if (family === 0) return 'unparseable';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return REFUSED.find((r) => r.list.check(plain, type))?.reason ?? null;
}

/** A URL as it may be shown in errors and logs: scheme, host and path (a query may carry a receiver's token). */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * What is wrong with a caller-chosen URL at submit time, or null: not http(s), or (unless private addresses
 * are allowed) a literal IP address that may not be called. A host name is checked when it is called, since
 * what it resolves to can change.
 */
export function submittedUrlProblem(value: string, policy: OutboundPolicy): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (policy.allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const reason = net.isIP(host) ? forbiddenAddressReason(host) : null;
  return reason ? `must not point at a ${reason} address (${host})` : null;
}

/** 422 naming the body field when a caller-chosen URL cannot be called (null and absent pass). */
export function assertSubmittedUrl(value: unknown, field: string, policy: OutboundPolicy): void {
  if (typeof value !== 'string') return;
  const problem = submittedUrlProblem(value, policy);
  if (!problem) return;
  throw AppError.invalid(`Invalid request: body ${field} ${problem}`, [{ location: 'body', field, message: problem }]);
}

/** The address was refused by the policy: nothing was sent. */
export class OutboundRefused extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`refused to call ${shownUrl(url)}: ${reason}`);
    this.name = 'OutboundRefused';
  }
}

export interface OutboundPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The largest answer body read (and dropped); receivers' answers are not used. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Resolves the host once and checks every address; returns the address to connect to. */
async function checkedAddress(url: URL, policy: OutboundPolicy): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const family = net.isIP(host);
  const addresses = family ? [{ address: host, family }] : await dnsLookup(host, { all: true, verbatim: true });
  if (!addresses.length) throw new Error(`${host} resolves to no address`);
  if (!policy.allowPrivate) {
    for (const a of addresses) {
      const reason = forbiddenAddressReason(a.address);
      if (!reason) continue;
      const what = host === a.address ? `${host} is` : `${host} resolves to ${a.address},`;
      throw new OutboundRefused(url.href, `${what} a ${reason} address`);
    }
  }
  return addresses[0];
}

/**
 * One POST to a caller-chosen URL under the policy. Resolves with the answer's status (a 3xx is returned,
 * never followed); throws OutboundRefused before sending anything to a refused address, or the network error.
 */
export async function postOutbound(req: OutboundPost, policy: OutboundPolicy): Promise<number> {
  const url = new URL(req.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundRefused(req.url, `${url.protocol} is not http or https`);
  }
  const signal = AbortSignal.any([AbortSignal.timeout(req.timeoutMs ?? 10_000), ...(req.signal ? [req.signal] : [])]);
  const pinned = await checkedAddress(url, policy);
  // The socket connects to the checked address whatever the name would resolve to now (no second resolution).
  type AllCallback = (err: null, addresses: { address: string; family: number }[]) => void;
  const lookup = ((_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as AllCallback)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  }) as LookupFunction;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<number>((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: 'POST',
        lookup,
        agent: false,
        signal,
        headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        res.on('close', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(res.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(req.body);
  });
}

/** Answers a receiver may give while busy: the delivery is tried again later. */
const RETRYABLE = new Set([408, 425, 429]);

/**
 * postOutbound inside an activity, with Temporal's failure semantics shared by every caller-chosen URL:
 * a refused address and a redirect fail the delivery at once (non-retryable, recorded on the workflow),
 * a network error, 408, 425, 429 or 5xx are retried by the activity's policy; 2xx and any other 4xx are
 * returned for the caller to judge.
 */
export async function deliverOutbound(req: OutboundPost & { what: string }, policy: OutboundPolicy): Promise<number> {
  const shown = shownUrl(req.url);
  let status: number;
  try {
    status = await postOutbound(req, policy);
  } catch (err) {
    if (err instanceof OutboundRefused) {
      throw ApplicationFailure.nonRetryable(`${req.what}: ${err.message}`, 'OutboundRefused');
    }
    const message = `${req.what} ${shown} unreachable: ${(err as Error).message}`;
    throw ApplicationFailure.retryable(message, 'OutboundUnreachable');
  }
  if (status >= 300 && status < 400) {
    const message = `${req.what} ${shown} answered ${status}; redirects are not followed`;
    throw ApplicationFailure.nonRetryable(message, 'OutboundRedirected');
  }
  if (status >= 500 || RETRYABLE.has(status)) {
    throw ApplicationFailure.retryable(`${req.what} ${shown} answered ${status}`, 'OutboundRetry');
  }
  return status;
}
