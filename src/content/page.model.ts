import { Schema, model } from 'mongoose';
import { contentSchema, publishableFields, type PublishableBase } from './content-schema';

const pageSchema = contentSchema({
  title: { type: String, required: true },
  description: { type: String, default: '' },
  /** Typed blocks `{type, data}`; an update replaces the whole array. */
  blocks: { type: [Schema.Types.Mixed], default: [] },
  template: { type: String, default: 'default' },
  sort_order: { type: Number, default: 0 },
  ...publishableFields,
});
pageSchema.index({ client_id: 1, status: 1, sort_order: 1 });
// KPIs: pages published in a window, of one client or of all.
pageSchema.index({ client_id: 1, status: 1, published_at: -1 });
pageSchema.index({ status: 1, published_at: -1 });

export interface PageBlock {
  type: string;
  data: Record<string, unknown>;
}

export interface PageDoc extends PublishableBase {
  title: string;
  description: string;
  blocks: PageBlock[];
  template: string;
  sort_order: number;
}
export const PageModel = model('ContentPage', pageSchema, 'content_pages');
