import sharp from 'sharp';
import type { TestApi } from '../support/harness';

/** A real PNG of the given size (a gradient, so it does not compress to nothing). */
export async function png(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7) % 251;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

export function media(api: TestApi) {
  const get = (token: string, id: string, query = '', headers: Record<string, string> = {}) =>
    fetch(`${api.url}/api/v1/idap/media/${id}${query}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  return {
    store: (clientId: string, body: Buffer, type: string, name?: string) =>
      api.rt.infra.media.storeMedia(clientId, body, type, name),
    get,
    bytes: async (res: Response) => Buffer.from(await res.arrayBuffer()),
  };
}
