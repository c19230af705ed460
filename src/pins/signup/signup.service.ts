import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { JsonBody } from '../../lib/contract-types';
import { AppError } from '../../lib/errors';
import { sha256, type KeyRing } from '../../lib/crypto';
import type { Clock } from '../../lib/clock';
import { fixedWindowLimit } from '../../lib/rate-limit';
import { newWebhookSecret } from '../../lib/standard-webhooks';
import type { Notifier } from '../../notifications/notifier';
import { CHANNEL_FAILURES } from '../../notifications/channels';
import { nameAvailability, MAX_CHECK_NAME_SUGGESTIONS } from '../availability';
import { PIN_NAME, normalizePinName, pinId } from '../pin-name';
import { PinModel } from '../pin.model';
import { ReservationModel, type ReservationDoc } from '../reservation.model';
import type { PinAddress, PinReservationInput } from '../../../workflows/pin-reservation-api';
import type { PinWorkflows } from '../pins.workflows';
import { signupLinkMessage } from './link-message';
import { brandMapsKey, type MapsCredentialLookup } from './maps-key';
import { maskIdentifier } from './mask';
import type { SignupTokens } from './tokens';

export const SIGNUP_CHANNELS = ['sms', 'email'] as const;
const E164 = /^\+[1-9]\d{6,14}$/;
const EMAIL = /^[^\s@]+@[^\s@][^\s.@]*\.[^\s@]+$/;
const ADDRESS_FIELD_MAX = 200;

export interface SignupDeps {
  /** Which window the limits count in (src/lib/clock.ts); the system clock unless a test moves it. */
  clock?: Clock;
  workflows: PinWorkflows;
  redis: Redis;
  notifier: Notifier;
  tokens: SignupTokens;
  /** Seals the pin_created callback's per-reservation signing secret. */
  ring: KeyRing;
  publicBaseUrl: string;
  reservationTtlSeconds: number;
  linkSendWaitMs: number;
  completeWaitMs: number;
  callback: { initial_ms: number; total_seconds: number };
  /** The brand's maps credential (integrations), for the signup page's map. */
  mapsCredential: MapsCredentialLookup;
  /** confirm-pin calls allowed per caller (agent token) an hour, and signup links per recipient a day. */
  confirmLimits: { perCallerPerHour: number; perRecipientPerDay: number };
}

export type ConfirmInput = JsonBody<'confirmPin'>;
export type CompleteInput = JsonBody<'completeSignup'>;

const invalidField = (field: string, message: string) =>
  AppError.invalid(`Invalid request: body ${field} ${message}`, [{ location: 'body', field, message }]);
const notAvailable = async (country_code: string, name: string) =>
  AppError.notFound('name_not_available', {
    suggestions: (await nameAvailability({ country_code, name, count: 5 })).suggestions,
  });

export function createSignupService(deps: SignupDeps) {
  const mapsKeyOf = brandMapsKey(deps.mapsCredential);

  /**
   * The reservation a valid token stands for; a token whose reservation is gone or has lapsed is 401 like an
   * expired one.
   */
  async function reservationOf(token: string, opts: { allowCompleted: boolean }): Promise<ReservationDoc> {
    const claims = deps.tokens.verify(token);
    const doc = await ReservationModel.findById(claims.pin_id).lean<ReservationDoc>();
    if (!doc || doc.reservation_id !== claims.reservation_id)
      throw AppError.unauthorized('Invalid or expired signup token');
    const open = doc.state === 'held' && doc.expires_at > new Date();
    if (!open && !(opts.allowCompleted && doc.state === 'completed'))
      throw AppError.unauthorized('Invalid or expired signup token');
    return doc;
  }

  // Name checks: 5 a second and 60 a minute per signup token (keyed by its hash).
  const checksPerSecond = fixedWindowLimit(deps.redis, 'signup-check-name:second', { max: 5, seconds: 1 }, deps.clock);
  const checksPerMinute = fixedWindowLimit(
    deps.redis,
    'signup-check-name:minute',
    { max: 60, seconds: 60 },
    deps.clock,
  );
  async function limitCheckName(token: string) {
    const id = sha256(token).slice(0, 32);
    await checksPerSecond.take(id, 'At most 5 name checks per second');
    await checksPerMinute.take(id, 'At most 60 name checks per minute');
  }

  // confirm-pin sends an SMS or e-mail (money) and holds a name for a day: limited per caller and per recipient.
  const confirmsPerCaller = fixedWindowLimit(
    deps.redis,
    'confirm-pin:caller',
    {
      max: deps.confirmLimits.perCallerPerHour,
      seconds: 3600,
    },
    deps.clock,
  );
  const linksPerRecipient = fixedWindowLimit(
    deps.redis,
    'confirm-pin:recipient',
    {
      max: deps.confirmLimits.perRecipientPerDay,
      seconds: 86_400,
    },
    deps.clock,
  );

  /** Sends the link and waits for its delivery: the provider took it, refused the destination, or is unavailable. */
  async function sendLink(reservationId: string, message: ReturnType<typeof signupLinkMessage>): Promise<void> {
    const outcome = await deps.notifier.deliver(`signup-link-${reservationId}`, message, deps.linkSendWaitMs);
    if (outcome === 'sent') return;
    if (outcome === CHANNEL_FAILURES.invalidDestination)
      throw invalidField('identifier', `The ${message.channel} provider rejected this destination`);
    if (outcome === CHANNEL_FAILURES.credentialRejected)
      throw new AppError(500, 'The messaging provider credential is misconfigured');
    if (outcome === CHANNEL_FAILURES.unreadable || outcome === CHANNEL_FAILURES.refused)
      throw new AppError(502, 'The messaging provider answered in a way that could not be interpreted');
    throw AppError.unavailable('The signup link could not be sent right now; try again');
  }

  return {
    /**
     * Reserves the name (one reservation per name, decided by Temporal's workflow id; the run writes its document)
     * and sends the signup link.
     */
    async confirm(brand: { client_id: string; brand_id: number }, input: ConfirmInput, caller: string) {
      const name = normalizePinName(input.name);
      const country = input.country_code;
      if (!PIN_NAME.test(name)) throw invalidField('name', 'must be letters, digits, _ and -, up to 64');
      if (!(SIGNUP_CHANNELS as readonly string[]).includes(input.channel))
        throw AppError.unavailable('channel_not_available');
      const channel = input.channel as (typeof SIGNUP_CHANNELS)[number];
      if (channel === 'sms' && !E164.test(input.identifier))
        throw invalidField('identifier', 'must be a phone number in E.164 (+31612345678)');
      if (channel === 'email' && !EMAIL.test(input.identifier))
        throw invalidField('identifier', 'must be an e-mail address');
      await confirmsPerCaller.take(
        caller,
        `At most ${deps.confirmLimits.perCallerPerHour} confirm-pin calls per hour for one caller`,
      );
      if (!(await nameAvailability({ country_code: country, name, count: 0 })).is_available)
        throw await notAvailable(country, name);
      // Counted only when a link is about to be sent, so a taken name costs the recipient's allowance nothing.
      const recipient = sha256(`${channel}:${input.identifier.toLowerCase()}`);
      await linksPerRecipient.take(
        recipient,
        `At most ${deps.confirmLimits.perRecipientPerDay} signup links per day to one recipient`,
      );

      const id = pinId(country, name);
      const reservationId = randomUUID();
      const expiresAt = new Date(Date.now() + deps.reservationTtlSeconds * 1000);
      const args: PinReservationInput = {
        reservation_id: reservationId,
        pin_id: id,
        country_code: country,
        name,
        client_id: brand.client_id,
        brand_id: brand.brand_id,
        callback_url: input.callback_url ?? null,
        expires_at_ms: expiresAt.getTime(),
        callback: deps.callback,
      };
      // The callback's own signing secret: shown once in this answer, stored only sealed, for this reservation alone
      // (an agent never learns the client's secret, which signs its job webhooks).
      const callbackSecret = input.callback_url ? newWebhookSecret() : null;
      const record = {
        channel,
        identifier: input.identifier,
        callback_secret_sealed: callbackSecret ? deps.ring.encrypt(callbackSecret) : null,
      };
      // The hold and its document are one step (the run writes the document before it answers): a name held by
      // another reservation, or already claimed by a pin, is not available.
      if (!(await deps.workflows.hold({ ...args, record }))) throw await notAvailable(country, name);
      // A refused confirm frees the name before it answers: the document says so, the workflow closes (briefly
      // awaited).
      const release = async () => {
        await ReservationModel.updateOne({ _id: id, reservation_id: reservationId }, { state: 'expired' }).catch(
          () => undefined,
        );
        await deps.workflows.release(id, reservationId);
      };
      const token = deps.tokens.issue({ reservation_id: reservationId, pin_id: id, expires_at: expiresAt });
      const link = `${deps.publicBaseUrl}/signup?token=${encodeURIComponent(token)}`;
      try {
        await sendLink(
          reservationId,
          signupLinkMessage({
            channel,
            to: input.identifier,
            name,
            country_code: country,
            link,
            expires_at: expiresAt,
          }),
        );
      } catch (err) {
        await release();
        throw err;
      }
      return {
        reservation_id: reservationId,
        expires_at: expiresAt.toISOString(),
        ...(callbackSecret ? { callback_secret: callbackSecret } : {}),
      };
    },

    async resolve(token: string) {
      const doc = await reservationOf(token, { allowCompleted: true });
      return {
        name: doc.name,
        country_code: doc.country_code,
        brand_id: doc.brand_id ?? 0,
        identifier_masked: maskIdentifier(doc.identifier),
        maps_byok_key_or_null: await mapsKeyOf({
          client_id: doc.client_id,
          brand_id: doc.brand_id ?? null,
          country_code: doc.country_code,
        }),
      };
    },

    /** Another name in the claim's country; the reserved name itself is this token's, so it reads as available. */
    async checkName(token: string, rawName: string) {
      deps.tokens.verify(token);
      await limitCheckName(token);
      const doc = await reservationOf(token, { allowCompleted: false });
      const name = normalizePinName(rawName);
      if (name === doc.name) return { is_available: true, suggestions: [] };
      return nameAvailability({ country_code: doc.country_code, name, count: MAX_CHECK_NAME_SUGGESTIONS });
    },

    async complete(input: CompleteInput) {
      const claims = deps.tokens.verify(input.token);
      const doc = await ReservationModel.findById(claims.pin_id).lean<ReservationDoc>();
      if (!doc || doc.reservation_id !== claims.reservation_id) throw AppError.notFound('Reservation not found');
      if (normalizePinName(input.name) !== doc.name || input.country_code !== doc.country_code) {
        throw AppError.conflict('Name or country does not match the reservation');
      }
      const address = checkAddress(input.structured_address ?? {});
      const written = async () =>
        (await PinModel.exists({ _id: doc._id, reservation_id: doc.reservation_id })) !== null;
      if (await written()) return { pin_id: doc._id, state: 'done' as const };
      const claim = {
        reservation_id: doc.reservation_id,
        lat: input.lat,
        lng: input.lng,
        structured_address: address,
        account_oauth_uid: input.account_oauth_uid ?? null,
        verified_identifier: input.verified_identifier ?? null,
      };
      const answer = await deps.workflows.complete(doc._id, claim, deps.completeWaitMs);
      if (answer !== 'closed') return { pin_id: doc._id, state: answer };
      // The hold has ended: completed by an earlier claim (its pin is there), or expired.
      if (await written()) return { pin_id: doc._id, state: 'done' as const };
      throw AppError.unauthorized('The reservation has expired');
    },
  };
}

/** Trimmed address fields, each at most 200 characters; a settlement (town) is required to find the place. */
function checkAddress(address: PinAddress): PinAddress {
  const out: PinAddress = {};
  for (const [field, value] of Object.entries(address)) {
    const v = String(value ?? '').trim();
    if (v.length > ADDRESS_FIELD_MAX)
      throw invalidField(`structured_address.${field}`, `must be at most ${ADDRESS_FIELD_MAX} characters`);
    if (v) out[field as keyof PinAddress] = v; // a field the contract declares (its validator admits no other)
  }
  if (!out.address_settlement)
    throw invalidField('structured_address.address_settlement', 'is required (the town or city)');
  return out;
}

export type SignupService = ReturnType<typeof createSignupService>;
