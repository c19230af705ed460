import { tenantQuery } from '../lib/tenancy';
import { PageModel } from './page.model';
import { PostModel } from './post.model';

/**
 * Posts or pages whose (latest) publication falls in [start, end) and that are still published, of one client or
 * all (null): the admin reports' content figures.
 */
export async function publishedIn(
  kind: 'posts' | 'pages',
  clientId: string | null,
  start: Date,
  end: Date,
): Promise<number> {
  const tenant = tenantQuery(clientId);
  const model = (kind === 'posts' ? PostModel : PageModel) as typeof PostModel;
  return model
    .countDocuments({ ...tenant.filter, status: 'published', published_at: { $gte: start, $lt: end } })
    .setOptions(tenant.options);
}
