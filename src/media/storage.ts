import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { Config } from '../lib/config';

export interface StoredObject {
  size: number;
  lastModified: Date;
}

/** Where media bytes live: S3 in production, the data directory locally (docs/decisions.md §1). */
export interface MediaStorage {
  readonly kind: 'local' | 's3';
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** A stream of the object, or null when there is none. */
  get(key: string): Promise<Readable | null>;
  head(key: string): Promise<StoredObject | null>;
  exists(key: string): Promise<boolean>;
  /** Removes the object; removing one that is not there is not an error. */
  delete(key: string): Promise<void>;
}

const KEY = /^[A-Z0-9][\w.-]*(?:\/[A-Z0-9][\w.-]*)*$/i;

function checkKey(key: string): string {
  if (!KEY.test(key) || key.includes('..')) throw new Error(`invalid storage key ${JSON.stringify(key)}`);
  return key;
}

/** `lookup`'s answer, or null when it failed because the object is not there (`missing` says which failures). */
async function unlessMissing<T>(missing: (err: unknown) => boolean, lookup: () => Promise<T>): Promise<T | null> {
  try {
    return await lookup();
  } catch (err) {
    if (missing(err)) return null;
    throw err;
  }
}

/** What every storage answers the same way: an object exists when `head` finds it. */
abstract class StorageBase {
  abstract head(key: string): Promise<StoredObject | null>;

  async exists(key: string): Promise<boolean> {
    return (await this.head(key)) !== null;
  }
}

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';

/** Files under a root directory; a write lands under a temporary name and is renamed into place. */
export class LocalStorage extends StorageBase implements MediaStorage {
  readonly kind = 'local' as const;
  constructor(private readonly root: string) {
    super();
  }

  private file(key: string) {
    return path.join(this.root, checkKey(key));
  }

  async put(key: string, body: Buffer): Promise<void> {
    const file = this.file(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    await fs.promises.writeFile(tmp, body);
    await fs.promises.rename(tmp, file);
  }

  get(key: string): Promise<Readable | null> {
    return unlessMissing(isMissing, async () => (await fs.promises.open(this.file(key), 'r')).createReadStream());
  }

  head(key: string): Promise<StoredObject | null> {
    return unlessMissing(isMissing, async () => {
      const st = await fs.promises.stat(this.file(key));
      return { size: st.size, lastModified: st.mtime };
    });
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.file(key), { force: true });
  }
}

const isNotFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

/** Objects in one S3 bucket (or any S3-compatible server: MinIO, s3rver). */
export class S3Storage extends StorageBase implements MediaStorage {
  readonly kind = 's3' as const;
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {
    super();
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: checkKey(key),
        Body: body,
        ContentType: contentType,
        ContentLength: body.length,
      }),
    );
  }

  get(key: string): Promise<Readable | null> {
    return unlessMissing(isNotFound, async () => {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: checkKey(key) }));
      return out.Body as Readable;
    });
  }

  head(key: string): Promise<StoredObject | null> {
    return unlessMissing(isNotFound, async () => {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: checkKey(key) }));
      return { size: out.ContentLength ?? 0, lastModified: out.LastModified ?? new Date(0) };
    });
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: checkKey(key) }));
  }
}

/** S3 when S3_BUCKET is set, else the data directory's media/ folder. */
export function createMediaStorage(config: Config): MediaStorage {
  if (!config.S3_BUCKET) return new LocalStorage(path.join(config.dataDir, 'media'));
  const credentials =
    config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
      ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
      : undefined;
  const client = new S3Client({
    region: config.S3_REGION,
    endpoint: config.S3_ENDPOINT,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    credentials,
  });
  return new S3Storage(client, config.S3_BUCKET);
}
