import net from 'node:net';

export interface RawAnswer {
  /** The status of the first answer on the connection (null: none came). */
  status: number | null;
  headers: Record<string, string>;
  /** Its body, parsed when it is JSON. */
  body: any;
  /** Milliseconds from the connect to the connection's close. */
  ms: number;
  /** Whether the server closed the connection (not the test, after `waitMs`). */
  closedByServer: boolean;
}

/**
 * One HTTP/1.1 connection written byte by byte as the test says, for what a client library does not do: send a
 * request's head or body slowly, or never finish it. It is used only from loopback source addresses
 * (127.0.0.0/8 is all on `lo`, so `localAddress` lets one test play several callers).
 */
export interface RawConnection {
  /** Writes `text` (a request's head, or a piece of its body) unless the connection has closed. */
  send(text: string): void;
  /** Sends `text` a byte at a time, one every `everyMs`, until it is all sent or the connection closes. */
  trickle(text: string, everyMs: number): void;
  /** What the server answered, once the connection closed (by the server, or by the test after `waitMs`). */
  closed: Promise<RawAnswer>;
  /** Whether an answer has begun to arrive. */
  answered(): boolean;
  /** Whether the connection has closed. */
  isClosed(): boolean;
  close(): void;
}

export function rawConnection(url: string, opts: { localAddress?: string; waitMs?: number } = {}): RawConnection {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  const socket = net.connect({ host: hostname, port: Number(port), localAddress: opts.localAddress });
  socket.on('error', () => undefined); // a write after the server closed, or its reset: the close says enough
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  let closedByServer = true;
  const giveUp = setTimeout(() => {
    closedByServer = false;
    socket.destroy();
  }, opts.waitMs ?? 30_000);
  const closed = new Promise<RawAnswer>((resolve) =>
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ ...parseAnswer(received), ms: performance.now() - started, closedByServer });
    }),
  );
  const open = () => !socket.destroyed && socket.writable;
  return {
    send: (text) => void (open() && socket.write(text)),
    trickle(text, everyMs) {
      let at = 0;
      const timer = setInterval(() => {
        if (!open() || at >= text.length) return clearInterval(timer);
        socket.write(text[at++]);
      }, everyMs);
      socket.once('close', () => clearInterval(timer));
    },
    closed,
    answered: () => received.length > 0,
    isClosed: () => socket.destroyed,
    close: () => socket.destroy(),
  };
}

/** The head of a JSON request (`body` only sizes its Content-Length; send it yourself). */
export function requestHead(method: string, path: string, body: string, headers: Record<string, string> = {}) {
  const lines = Object.entries({
    host: 'localhost',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  }).map(([name, value]) => `${name}: ${value}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

function parseAnswer(text: string): Omit<RawAnswer, 'ms' | 'closedByServer'> {
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) return { status: null, headers: {}, body: null };
  const [statusLine, ...lines] = text.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(headEnd + 4);
  if (headers['content-length']) body = body.slice(0, Number(headers['content-length']));
  else if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
  let parsed: unknown = body;
  try {
    parsed = JSON.parse(body);
  } catch {
    /* not JSON */
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: parsed };
}

function unchunk(text: string): string {
  let out = '';
  for (let at = 0; at < text.length;) {
    const lineEnd = text.indexOf('\r\n', at);
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (!size) break;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
  return out;
}
