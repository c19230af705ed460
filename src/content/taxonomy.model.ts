import { model } from 'mongoose';
import { contentSchema, type ContentBase } from './content-schema';

/** Tags and categories have the same shape: a name, a slug unique per client and a description. */
function taxonomySchema() {
  const schema = contentSchema({
    name: { type: String, required: true },
    description: { type: String, default: null },
  });
  schema.index({ client_id: 1, name: 1 });
  return schema;
}

export interface TaxonomyDoc extends ContentBase {
  name: string;
  description: string | null;
}

export const TagModel = model('ContentTag', taxonomySchema(), 'content_tags');
export const CategoryModel = model('ContentCategory', taxonomySchema(), 'content_categories');
