import { Schema, model } from 'mongoose';
import type { Schemas } from '../lib/contract-types';
import { contentSchema, publishableFields, type PublishableBase } from './content-schema';

const postSchema = contentSchema({
  title: { type: String, required: true },
  body: { type: Schema.Types.Mixed, required: true },
  /** The body rendered to sanitised HTML once, at write time. */
  body_html: { type: String, default: '' },
  excerpt: { type: String, default: null },
  tldr_summary: { type: String, default: null },
  cover_image_url: { type: String, default: null },
  featured_image_alt: { type: String, default: null },
  author_id: { type: String, default: null },
  tag_ids: { type: [String], default: [] },
  category_ids: { type: [String], default: [] },
  related_post_ids: { type: [String], default: [] },
  reading_time: { type: Number, default: 0 },
  view_count: { type: Number, default: 0 },
  is_featured: { type: Boolean, default: false },
  ...publishableFields,
});
postSchema.index({ client_id: 1, status: 1, published_at: -1 });
postSchema.index({ status: 1, published_at: -1 }); // the platform's KPIs: published in a window, every client

export interface PostDoc extends PublishableBase {
  title: string;
  /** Rich text, as the contract's RichTextNode (validated before it is stored). */
  body: Schemas['RichTextNode'];
  body_html: string;
  excerpt: string | null;
  tldr_summary: string | null;
  cover_image_url: string | null;
  featured_image_alt: string | null;
  author_id: string | null;
  tag_ids: string[];
  category_ids: string[];
  related_post_ids: string[];
  reading_time: number;
  view_count: number;
  is_featured: boolean;
}
export const PostModel = model('ContentPost', postSchema, 'content_posts');
