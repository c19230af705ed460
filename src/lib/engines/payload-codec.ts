import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { Schemas } from '../contract-types';
import { keyIdOf, parseKey } from '../crypto';
import { AppError } from '../errors';

/** Where the API serves Temporal's remote codec protocol (`/decode`, `/encode`) for the Temporal UI. */
export const TEMPORAL_CODEC_PATH = '/api/v1/system/temporal-codec';

const ENCODING = 'binary/encrypted';
const KEY_ID = 'encryption-key-id';
const ProtoPayload = temporal.api.common.v1.Payload;

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null | undefined) => (b ? new TextDecoder().decode(b) : undefined);

/** A payload without this codec's encryption, refused (TEMPORAL_ACCEPT_PLAINTEXT_PAYLOADS is off). */
export class PlaintextPayloadRefused extends Error {
  constructor(encoding: string | undefined) {
    super(
      `payload is not encrypted (encoding ${encoding ?? 'none'}): refused, since only this service's codec writes ` +
        'payloads; TEMPORAL_ACCEPT_PLAINTEXT_PAYLOADS=true admits histories written before encryption',
    );
    this.name = 'PlaintextPayloadRefused';
  }
}

/**
 * Encrypts every workflow and activity payload (inputs, results, signals, Updates) with AES-256-GCM before
 * it reaches Temporal, so secrets (approval and signup links, callback secrets, e-mail bodies) never sit in
 * clear in workflow history. Each payload names the id of its key; the keys are derived (HKDF) from
 * CREDENTIALS_KEY and the keys it replaced, so a rotation keeps older histories readable.
 *
 * A payload without the encryption is refused, not read: whoever reaches Temporal's frontend could otherwise
 * start a workflow, signal it or send an Update (an approval decision) that the worker would act on. Histories
 * written before encryption are admitted only while `acceptPlaintext` (TEMPORAL_ACCEPT_PLAINTEXT_PAYLOADS) says
 * so, for the time their runs take to finish.
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentKeyId: string;
  private readonly acceptPlaintext: boolean;

  constructor(current: string, previous: string[] = [], opts: { acceptPlaintext?: boolean } = {}) {
    this.acceptPlaintext = opts.acceptPlaintext ?? false;
    this.currentKeyId = keyIdOf(current);
    for (const key of [current, ...previous]) {
      const derived = Buffer.from(hkdfSync('sha256', parseKey(key), Buffer.alloc(0), 'temporal-payload-codec:v1', 32));
      if (!this.keys.has(keyIdOf(key))) this.keys.set(keyIdOf(key), derived);
    }
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => ({
      metadata: { encoding: utf8(ENCODING), [KEY_ID]: utf8(this.currentKeyId) },
      data: this.seal(ProtoPayload.encode(payload).finish()),
    }));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = text(payload.metadata?.encoding);
      if (encoding !== ENCODING) {
        if (this.acceptPlaintext) return payload;
        throw new PlaintextPayloadRefused(encoding);
      }
      const keyId = text(payload.metadata?.[KEY_ID]) ?? '';
      const key = this.keys.get(keyId);
      if (!key)
        throw new Error(
          `payload encrypted under key ${keyId}, which is not configured (CREDENTIALS_KEY, CREDENTIALS_KEY_PREVIOUS)`,
        );
      return ProtoPayload.decode(this.open(key, payload.data ?? new Uint8Array())) as Payload;
    });
  }

  /** iv (12 bytes), ciphertext, tag (16 bytes). */
  private seal(plain: Uint8Array): Uint8Array {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv);
    return Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  }

  private open(key: Buffer, sealed: Uint8Array): Uint8Array {
    const bytes = Buffer.from(sealed);
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]);
  }
}

/** Payloads as the Temporal UI's codec endpoint sends them: proto3 JSON, bytes in base64. */
export type JsonPayloads = Schemas['TemporalPayloads'];

const fromJson = (p: JsonPayloads['payloads'][number]): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});
const toJson = (p: Payload): JsonPayloads['payloads'][number] => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? []).toString('base64'),
});

/** The codec endpoint's work (Temporal's remote codec protocol): decode or encode a batch of JSON payloads. */
export async function codecJson(
  codec: PayloadCodec,
  action: 'encode' | 'decode',
  body: JsonPayloads,
): Promise<JsonPayloads> {
  const payloads = body.payloads.map(fromJson);
  const done = await codec[action](payloads).catch((err: Error) => {
    throw AppError.invalid(`The payloads could not be ${action}d: ${err.message}`);
  });
  return { payloads: done.map(toJson) };
}
