import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { httpRequestsTimedOut } from '../metrics';

export interface ReadDeadlines {
  /** A request's head must have arrived this long after its first byte (a new connection's: after the connect). */
  headersTimeoutMs: number;
  /** The whole request, body included, likewise. The answer is not timed. */
  requestTimeoutMs: number;
}

/**
 * How often Node looks for requests past a deadline. Its default, 30 s, would let a request outlive its deadline by
 * up to that; four times a second keeps every deadline within a quarter of a second, and costs a walk over the
 * connections whose request is still arriving (Node's own list, in C++), nothing per request.
 */
const CHECK_INTERVAL_MS = 250;

/**
 * The HTTP server's read deadlines (docs/security.md, "Slow and stalled clients"), as options of
 * http.createServer: Node's requestTimeout and headersTimeout count from a request's first byte until its last
 * (the parser's message complete), so an event stream or a slow handler is never cut by them, only a caller that
 * does not finish sending. Node answers a request past either with the error ERR_HTTP_REQUEST_TIMEOUT on
 * 'clientError' (below), whether its head is still arriving or its body, after the app got the request.
 */
export function readDeadlineOptions(
  deadlines: ReadDeadlines,
): Pick<http.ServerOptions, 'headersTimeout' | 'requestTimeout' | 'connectionsCheckingInterval'> {
  return {
    headersTimeout: deadlines.headersTimeoutMs,
    requestTimeout: deadlines.requestTimeoutMs,
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
  };
}

/** Node's own link from a connection to the answer in progress on it, which its default clientError handling reads. */
type ServerSocket = Duplex & { _httpMessage?: http.ServerResponse | null };

interface ClientErrorAnswer {
  status: number;
  reason: string;
  detail: string;
}

/**
 * Node's 'clientError' handling, with the contract's JSON `{detail}` bodies: a request past its read deadline is
 * answered 408, a request Node's parser cannot read 431, 413 or 400 (as Node itself answers them, without a body),
 * and its connection is closed. When the app already has the request (its body was arriving), the answer goes
 * through that request's response, so the access log and lead_http_request_duration_seconds see it; before that
 * (the head was arriving) it is written on the connection. A connection that can no longer take an answer (its
 * answer has begun, or the caller is gone) is only closed. lead_http_requests_timed_out_total counts the 408s.
 */
export function answerClientErrors(deadlines: ReadDeadlines) {
  const headersLate: ClientErrorAnswer = {
    status: 408,
    reason: 'Request Timeout',
    detail: `The request's headers did not arrive within ${deadlines.headersTimeoutMs} ms`,
  };
  const requestLate: ClientErrorAnswer = {
    status: 408,
    reason: 'Request Timeout',
    detail: `The request did not arrive in full within ${deadlines.requestTimeoutMs} ms`,
  };
  const unreadable: Record<string, ClientErrorAnswer> = {
    HPE_HEADER_OVERFLOW: {
      status: 431,
      reason: 'Request Header Fields Too Large',
      detail: 'Request headers too large',
    },
    HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, reason: 'Payload Too Large', detail: 'Chunk extensions too large' },
  };
  const malformed: ClientErrorAnswer = { status: 400, reason: 'Bad Request', detail: 'Malformed HTTP request' };

  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    const inProgress = (socket as ServerSocket)._httpMessage;
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (timedOut) httpRequestsTimedOut.inc({ phase: inProgress ? 'body' : 'headers' });
    const answer = timedOut ? (inProgress ? requestLate : headersLate) : (unreadable[err.code ?? ''] ?? malformed);
    if (!socket.writable || inProgress?.headersSent) {
      socket.destroy();
    } else if (inProgress) {
      const body = JSON.stringify({ detail: answer.detail });
      inProgress.once('finish', () => socket.destroy());
      inProgress
        .writeHead(answer.status, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(body),
          Connection: 'close',
        })
        .end(body);
    } else {
      socket.write(rawAnswer(answer), () => socket.destroy());
    }
  };
}

/** An answer written on a connection that has no request object (its head never arrived, or could not be read). */
function rawAnswer({ status, reason, detail }: ClientErrorAnswer): string {
  const body = JSON.stringify({ detail });
  return (
    `HTTP/1.1 ${status} ${reason}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'X-Content-Type-Options: nosniff\r\n' +
    'Connection: close\r\n\r\n' +
    body
  );
}
