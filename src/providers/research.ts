import { ProviderError } from './errors';
import { providerRequest, rejected } from './http';

export interface FetchedPage {
  url: string;
  html: string;
}

/**
 * The research-source provider: fetches a company's web page for us (GET {base}/fetch?url=...), authenticated by
 * its key in the `X-Api-Key` header (never in the URL, which traces and proxies' logs record).
 */
export interface ResearchProvider {
  /** The page's HTML, or null when the target page does not exist (404/410 from the target). */
  fetchPage(url: string, signal?: AbortSignal): Promise<FetchedPage | null>;
}

const PROVIDER = 'research';
const HTML = /^(?:text\/html|application\/xhtml\+xml|text\/plain)/i;
/** The most of a page read (bytes): a company website is hostile input, and extraction reads no more than this. */
export const MAX_PAGE_BYTES = 1_048_576;

export function createResearchProvider(opts: { baseUrl: string; key?: string; timeoutMs?: number }): ResearchProvider {
  const base = opts.baseUrl.replace(/\/$/, '');
  const timeoutMs = opts.timeoutMs ?? 20_000;
  return {
    async fetchPage(url, signal) {
      const params = new URLSearchParams({ url });
      const res = await providerRequest(PROVIDER, `${base}/fetch?${params}`, {
        timeoutMs,
        signal,
        accept: 'text/html',
        maxBodyBytes: MAX_PAGE_BYTES,
        headers: opts.key ? { 'x-api-key': opts.key } : undefined,
      });
      if (res.status === 404 || res.status === 410) return null;
      if (res.status >= 400) throw rejected(PROVIDER, res);
      if (!HTML.test(res.contentType)) {
        throw new ProviderError(
          PROVIDER,
          'malformed',
          `expected an HTML page for ${url}, got ${res.contentType || 'no content type'}`,
          res.status,
        );
      }
      return { url, html: res.text };
    },
  };
}
