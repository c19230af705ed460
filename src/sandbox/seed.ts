import { createHash } from 'node:crypto';
import { trimWhere } from '../lib/trim';

/** Deterministic pseudo-randomness for the sandbox: the same input always yields the same data. */
export class Seed {
  private readonly bytes: Buffer;
  private pos = 0;

  constructor(...parts: (string | number)[]) {
    this.bytes = createHash('sha512').update(parts.join('\u0000')).digest();
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    const b = this.bytes.readUInt16BE(this.pos % (this.bytes.length - 1));
    this.pos += 2;
    return min + (b % (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }

  hex(length: number): string {
    return this.bytes.toString('hex').slice(0, length);
  }

  id(length: number): string {
    return this.bytes.toString('base64url').slice(0, length);
  }
}

export const slugify = (s: string) =>
  trimWhere(s.toLowerCase().replace(/[^a-z0-9]+/g, '-'), (c) => c === '-').slice(0, 40) || 'company';

export const titleCase = (s: string) => s.replace(/\b[a-z]/g, (c) => c.toUpperCase());
