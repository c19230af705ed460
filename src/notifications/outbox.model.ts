import { Schema, model } from 'mongoose';
import { baseSchemaOptions } from '../lib/ids';

/** Messages "sent" by the outbox driver (the local default for e-mail and SMS). */
const outboxSchema = new Schema(
  {
    _id: { type: String, required: true }, // the message id: a retried delivery writes the same document
    channel: { type: String, enum: ['email', 'sms'], required: true },
    to: { type: String, required: true },
    subject: { type: String, default: null },
    text: { type: String, required: true },
    html: { type: String, default: null },
    links: { type: [String], default: [] },
  },
  baseSchemaOptions,
);
outboxSchema.index({ channel: 1, to: 1, created_at: -1 });

export const OutboxMessageModel = model('OutboxMessage', outboxSchema, 'outbox_messages');
