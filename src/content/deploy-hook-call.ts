// What a deploy hook call carries: shared by the area's service, its workflow starter, the workflow and its
// activity (a file of its own so none of them imports another for a type).

/** What the deploy hook receives (JSON, POST) when a post or page is published. */
export interface DeployHookPayload {
  event: 'content.published';
  type: 'post' | 'page';
  id: string;
  slug: string;
  client_id: string;
  revision: number;
  published_at: string | null;
}

export interface DeployHookCall {
  url: string;
  /** The workflow id; sent as Idempotency-Key so a receiver can drop a retried delivery. */
  delivery_id: string;
  payload: DeployHookPayload;
}
