import { model } from 'mongoose';
import { contentSchema, type ContentBase } from './content-schema';

export const AUTHOR_ROLES = ['author', 'editor', 'contributor', 'administrator'] as const;
export const AGENT_TYPES = ['human', 'ai'] as const;

const authorSchema = contentSchema({
  full_name: { type: String, required: true },
  avatar_url: { type: String, default: null },
  bio: { type: String, default: null },
  email: { type: String, default: null },
  role: { type: String, enum: AUTHOR_ROLES, default: 'author' },
  agent_type: { type: String, enum: AGENT_TYPES, default: 'human' },
  country: { type: String, default: null },
  city: { type: String, default: null },
  is_active: { type: Boolean, default: true },
});
authorSchema.index({ client_id: 1, full_name: 1 });
authorSchema.index({ client_id: 1, is_active: 1, full_name: 1 });

export interface AuthorDoc extends ContentBase {
  full_name: string;
  avatar_url: string | null;
  bio: string | null;
  email: string | null;
  role: (typeof AUTHOR_ROLES)[number];
  agent_type: (typeof AGENT_TYPES)[number];
  country: string | null;
  city: string | null;
  is_active: boolean;
}
export const AuthorModel = model('ContentAuthor', authorSchema, 'content_authors');
