import { AppError } from '../lib/errors';

/** Pin names: letters, digits, `_` and `-`, starting with a letter or digit, up to 64; stored upper-case. */
export const PIN_NAME = /^[A-Z0-9][A-Z0-9_-]{0,63}$/;
export const COUNTRY_CODE = /^[A-Z]{2}$/;

/** The stored form of a name as an agent or end user typed it (any case). */
export const normalizePinName = (name: string): string => name.trim().toUpperCase();

/** `COUNTRY:NAME`, the pin's id and the reservation workflow's key. */
export const pinId = (countryCode: string, name: string): string => `${countryCode}:${normalizePinName(name)}`;

/** Splits a pin id that must already be in its stored (upper-case) form; 422 otherwise. */
export function parsePinId(id: string): { country_code: string; name: string } {
  const [country, name, ...rest] = id.split(':');
  if (rest.length || !COUNTRY_CODE.test(country ?? '') || !PIN_NAME.test(name ?? '')) {
    throw new AppError(422, 'pin_id must be COUNTRY:NAME in upper case (letters, digits, _ and -)');
  }
  return { country_code: country, name };
}
