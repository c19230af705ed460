import type { AnyModel } from '../lib/any-model';
import { AuthorModel, type AuthorDoc } from './author.model';
import type { PostRefs } from './content.views';
import { PostModel, type PostDoc } from './post.model';
import { CategoryModel, TagModel, type TaxonomyDoc } from './taxonomy.model';

async function byIds<T extends { _id: string }>(
  model: AnyModel,
  clientId: string,
  ids: Set<string>,
  extra: object = {},
): Promise<Map<string, T>> {
  if (!ids.size) return new Map();
  const docs = await model.find({ client_id: clientId, _id: { $in: [...ids] }, ...extra }).lean<T[]>();
  return new Map(docs.map((d) => [d._id, d]));
}

/**
 * Loads the authors, tags, categories and related posts of a set of posts in one query each, all
 * within the client. For public reads only published related posts are loaded.
 */
export async function loadPostRefs(
  clientId: string,
  posts: PostDoc[],
  opts: { related: boolean; publishedOnly: boolean },
): Promise<PostRefs> {
  const collect = (f: (p: PostDoc) => (string | null | undefined)[]) =>
    new Set(posts.flatMap(f).filter((id): id is string => Boolean(id)));
  const [authors, tags, categories, related] = await Promise.all([
    byIds<AuthorDoc>(
      AuthorModel,
      clientId,
      collect((p) => [p.author_id]),
    ),
    byIds<TaxonomyDoc>(
      TagModel,
      clientId,
      collect((p) => p.tag_ids),
    ),
    byIds<TaxonomyDoc>(
      CategoryModel,
      clientId,
      collect((p) => p.category_ids),
    ),
    opts.related
      ? byIds<PostDoc>(
          PostModel,
          clientId,
          collect((p) => p.related_post_ids),
          opts.publishedOnly ? { status: 'published' } : {},
        )
      : Promise.resolve(new Map<string, PostDoc>()),
  ]);
  return { authors, tags, categories, related };
}

/** Ids from `ids` that are not records of this client in `model` (for 400s on foreign or unknown references). */
export async function missingIds(model: AnyModel, clientId: string, ids: string[] | undefined): Promise<string[]> {
  const unique = [...new Set(ids ?? [])];
  if (!unique.length) return [];
  const found = await model.find({ client_id: clientId, _id: { $in: unique } }, { _id: 1 }).lean<{ _id: string }[]>();
  const have = new Set(found.map((d) => d._id));
  return unique.filter((id) => !have.has(id));
}
