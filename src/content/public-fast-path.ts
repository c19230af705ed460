import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ContentCache } from './content-cache';
import type { PublicContentService } from './public.service';
import { readKey, withViewCount, type PublicResponder } from './public-http';

/** A slug as the contract's ContentSlug pattern allows it. */
const SLUG = '[a-z0-9]+(?:-[a-z0-9]+)*';
/** The public read URLs; the one group is a post's slug. */
const PUBLIC_READ = new RegExp(
  `^/api/v1/content/(?:authors|posts|pages|categories|tags|pages/${SLUG}|posts/(${SLUG}))$`,
);

/** The contract's bound on If-None-Match: a longer one must reach the validator (and its 422). */
const IF_NONE_MATCH_MAX = 1000;

/**
 * Answers public reads that the cache already holds before body parsing, contract validation and
 * routing, which cost several times more than the cache lookup itself. It only ever serves an entry
 * stored for the same URL by the validated route (see readKey), for a domain resolved moments ago;
 * anything else (a miss, an unknown domain, a Redis failure) goes down the normal path unchanged.
 */
export function publicContentFastPath(deps: {
  cache: ContentCache;
  pub: PublicContentService;
  responder: PublicResponder;
}): RequestHandler {
  const { cache, pub, responder } = deps;

  async function serveHit(
    req: Request,
    res: Response,
    clientId: string,
    postSlug: string | undefined,
  ): Promise<boolean> {
    const counter = postSlug === undefined ? undefined : pub.liveViewCounter(clientId, postSlug);
    const { hit, counted } = await cache.get(clientId, readKey(req), counter);
    if (!hit) return false;
    if (postSlug === undefined) {
      responder.send(req, res, hit);
      return true;
    }
    // A post read counts a view: on the live counter (already done with the cache read) or, without one, in MongoDB.
    if (counted !== null) pub.viewCounted(clientId, postSlug);
    const views = counted ?? (await pub.countView(clientId, postSlug));
    if (views === null) return false;
    responder.send(req, res, hit, withViewCount(hit.body, views));
    return true;
  }

  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' || (req.get('if-none-match')?.length ?? 0) > IF_NONE_MATCH_MAX) return next();
    const match = PUBLIC_READ.exec(req.path);
    const clientId = match ? pub.rememberedClient(req.get('x-content-domain')) : undefined;
    if (!match || !clientId) return next();
    serveHit(req, res, clientId, match[1]).then(
      (served) => void (served || next()),
      () => next(),
    );
  };
}
