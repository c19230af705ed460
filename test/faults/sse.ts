/**
 * An event-stream subscriber that behaves like a browser's EventSource: when the stream ends or fails
 * it reconnects after a short pause with the id of the last frame it got (Last-Event-ID), and keeps
 * every job event id it received.
 */
export function startSubscriber(getBase: () => string, token: string) {
  const received = new Map<string, { event: string; job_id: string }>();
  let firstPosition: string | null = null;
  let lastId: string | null = null;
  let connections = 0;
  const refusals: number[] = [];
  let running = true;
  let ctrl: AbortController | null = null;

  async function readOnce() {
    ctrl = new AbortController();
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastId) headers['last-event-id'] = lastId;
    const res = await fetch(`${getBase()}/api/v1/events/stream?token=${encodeURIComponent(token)}`, {
      headers,
      signal: ctrl.signal,
    });
    if (res.status !== 200 || !res.body) {
      refusals.push(res.status);
      await res.body?.cancel();
      return;
    }
    connections++;
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      for (let end; (end = buf.indexOf('\n\n')) >= 0; buf = buf.slice(end + 2)) {
        const frame: { id?: string; event?: string; data?: any } = {};
        for (const line of buf.slice(0, end).split('\n')) {
          const at = line.indexOf(': ');
          const [key, value] = at < 0 ? [line, ''] : [line.slice(0, at), line.slice(at + 2)];
          if (key === 'id') frame.id = value;
          else if (key === 'event') frame.event = value;
          else if (key === 'data') frame.data = JSON.parse(value);
        }
        if (!frame.id) continue; // heartbeats carry none
        if (frame.event === 'connected') firstPosition ??= frame.id;
        else received.set(frame.id, { event: frame.event!, job_id: frame.data?.job_id });
        lastId = frame.id;
      }
    }
  }

  const loop = (async () => {
    while (running) {
      await readOnce().catch(() => undefined);
      if (running) await new Promise((r) => setTimeout(r, 300));
    }
  })();

  return {
    received,
    refusals,
    get connections() {
      return connections;
    },
    /** The stream position of its first connection: every event after it must reach this subscriber. */
    get firstPosition() {
      return firstPosition;
    },
    async stop() {
      running = false;
      ctrl?.abort();
      await loop;
    },
  };
}
