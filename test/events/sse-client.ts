/** A minimal server-sent-events client over fetch, for tests: collects frames and waits for them. */
export interface Frame {
  id?: string;
  event: string;
  data: any;
}

export interface SseStream {
  status: number;
  frames: Frame[];
  /** Settles once the answer's body has ended (the server closed the stream, or close() was called). */
  ended: Promise<void>;
  next(match: (f: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  close(): void;
}

export async function openStream(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ctrl.signal });
  const frames: Frame[] = [];
  const waiters: { match: (f: Frame) => boolean; resolve: (f: Frame) => void; from: number }[] = [];
  const notify = () => {
    for (const w of [...waiters]) {
      const found = frames.slice(w.from).find(w.match);
      if (found) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(found);
      }
    }
  };
  let ended: Promise<void> = Promise.resolve();
  if (res.ok && res.body) {
    ended = (async () => {
      const decoder = new TextDecoder();
      let buf = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          let end;
          while ((end = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, end);
            buf = buf.slice(end + 2);
            const f: Partial<Frame> & { raw?: string } = {};
            for (const line of block.split('\n')) {
              const [k, ...rest] = line.split(': ');
              if (k === 'id') f.id = rest.join(': ');
              if (k === 'event') f.event = rest.join(': ');
              if (k === 'data') f.data = JSON.parse(rest.join(': '));
            }
            if (f.event) frames.push(f as Frame);
          }
          notify();
        }
      } catch {
        /* closed */
      }
    })();
  }
  let seen = 0;
  return {
    status: res.status,
    frames,
    ended,
    next(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const found = frames.slice(seen).find(match);
        if (found) {
          seen = frames.indexOf(found) + 1;
          return resolve(found);
        }
        const timer = setTimeout(
          () =>
            reject(new Error(`no matching event within ${timeoutMs} ms; got ${frames.map((f) => f.event).join(', ')}`)),
          timeoutMs,
        );
        waiters.push({
          match,
          from: seen,
          resolve: (f) => {
            clearTimeout(timer);
            seen = frames.indexOf(f) + 1;
            resolve(f);
          },
        });
      });
    },
    close: () => ctrl.abort(),
  };
}
