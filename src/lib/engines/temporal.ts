import { InterceptingCall, Metadata, status, type Interceptor } from '@grpc/grpc-js';
import {
  Client,
  Connection,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type TLSConfig,
  type WorkflowHandle,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { ApplicationFailure, type PayloadCodec, type Workflow } from '@temporalio/common';
import fs from 'node:fs';
import type { Config } from '../config';
import { AppError } from '../errors';
import { clientInterceptors } from './temporal-interceptors';
import { createSearchAttributeGate, type SearchAttributeGate } from './search-attributes';

/**
 * A call that ends at once with CANCELLED, which the retry interceptor hands to its caller without retrying.
 * Like grpc-js's own unary calls, it delivers an empty (null) message before a status without one: the
 * retry interceptor passes the status on only after a message.
 */
function cancelledCall(details: string): InterceptingCall {
  const ended: ConstructorParameters<typeof InterceptingCall>[0] = {
    start: (_metadata, listener) =>
      setImmediate(() => {
        listener?.onReceiveMessage?.(null);
        listener?.onReceiveStatus?.({ code: status.CANCELLED, details, metadata: new Metadata() });
      }),
    cancelWithStatus: () => undefined,
    getPeer: () => '',
    sendMessageWithContext: () => undefined,
    sendMessage: () => undefined,
    startRead: () => undefined,
    halfClose: () => undefined,
    getAuthContext: () => null,
  };
  return new InterceptingCall(ended);
}

/**
 * Sits inside the SDK's retry interceptor. Once the connection is closed, the channel throws on every new
 * attempt: from a retry whose backoff timer fires after the close (a shutdown while Temporal answered
 * UNAVAILABLE) that would crash the process. Here such an attempt, or a first one, fails its call instead.
 */
export const closedChannelGuard: Interceptor = (options, nextCall) => {
  try {
    return new InterceptingCall(nextCall(options));
  } catch (err) {
    return cancelledCall(`Temporal connection closed: ${(err as Error).message}`);
  }
};

const defaultRetry = defaultGrpcRetryOptions();

/**
 * The SDK's retries, but none that would start after the call's deadline: its backoff (up to 5 s) sleeps
 * past a deadline otherwise, and a call under `withinDeadline` answered up to 5 s late.
 */
export const retryWithinDeadline: Interceptor = (options, nextCall) => {
  const deadline = options.deadline instanceof Date ? options.deadline.getTime() : (options.deadline ?? Infinity);
  const left = () => deadline - Date.now();
  return makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => left() > 0 && defaultRetry.retryableDecider(attempt, status),
    delayFunction: (attempt, status) => Math.max(0, Math.min(defaultRetry.delayFunction(attempt, status), left())),
  })(options, nextCall);
};

/** How the client and the worker reach Temporal: the address, and TLS and an API key for a real cluster. */
export interface TemporalConnection {
  address: string;
  tls?: TLSConfig;
  apiKey?: string;
}

type TemporalTlsSettings = Pick<
  Config,
  'TEMPORAL_TLS_CERT' | 'TEMPORAL_TLS_KEY' | 'TEMPORAL_TLS_CA' | 'TEMPORAL_TLS_SERVER_NAME' | 'TEMPORAL_API_KEY'
>;

/** PEM given inline, or read from the file it names. */
const pemOf = (value: string | undefined) =>
  value === undefined
    ? undefined
    : Buffer.from(value.trimStart().startsWith('-----BEGIN') ? value : fs.readFileSync(value));

/**
 * The connection the settings describe, for the API's client and the worker alike: mTLS with the client's
 * certificate pair (Temporal Cloud, a TLS frontend), a CA and server name where they differ from the defaults,
 * or an API key (which implies TLS). Without any of them, plaintext (the local dev server).
 */
export function temporalConnectionOf(settings: TemporalTlsSettings, address: string): TemporalConnection {
  const { TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key, TEMPORAL_TLS_CA: ca } = settings;
  const serverName = settings.TEMPORAL_TLS_SERVER_NAME;
  if (!cert && !ca && !serverName && !settings.TEMPORAL_API_KEY) return { address };
  const tls: TLSConfig = {
    ...(cert && key ? { clientCertPair: { crt: pemOf(cert)!, key: pemOf(key)! } } : {}),
    ...(ca ? { serverRootCACertificate: pemOf(ca) } : {}),
    ...(serverName ? { serverNameOverride: serverName } : {}),
  };
  return { address, tls, ...(settings.TEMPORAL_API_KEY ? { apiKey: settings.TEMPORAL_API_KEY } : {}) };
}

/**
 * A Temporal client on a lazy connection: the API starts even while Temporal is down, and reconnects later.
 * `payloadCodec` encrypts what it sends and decrypts what it reads (the worker uses the same one).
 */
export function createTemporalClient(
  target: TemporalConnection,
  namespace: string,
  payloadCodec: PayloadCodec,
  searchAttributes: SearchAttributeGate = createSearchAttributeGate(),
): Client {
  const interceptors = [retryWithinDeadline, closedChannelGuard];
  const connection = Connection.lazy({ ...target, connectTimeout: 3000, interceptors });
  // Spans of its calls and the request id travel to the workflows in headers (temporal-interceptors.ts).
  return new Client({
    connection,
    namespace,
    dataConverter: { payloadCodecs: [payloadCodec] },
    interceptors: clientInterceptors(searchAttributes),
  });
}

export async function pingTemporal(client: Client): Promise<void> {
  await client.connection.workflowService.describeNamespace({ namespace: client.options.namespace });
}

/** How long a Temporal call made while an HTTP request waits may take, retries included. */
export const REQUEST_CALL_DEADLINE_MS = 8_000;

/**
 * Runs Temporal calls under a deadline, so an unreachable server ends in DEADLINE_EXCEEDED (503 to the
 * caller) within bounded time, instead of the client's own retries outlasting the request. A call that
 * times out may still have taken effect; every use is idempotent or reports the state it finds.
 */
export function withinDeadline<T>(
  client: Pick<Client, 'withDeadline'>,
  fn: () => Promise<T>,
  ms = REQUEST_CALL_DEADLINE_MS,
): Promise<T> {
  return client.withDeadline(Date.now() + ms, fn);
}

/** The innermost ApplicationFailure's type in a Temporal failure chain (workflow → activity → application). */
export function failureTypeOf(err: unknown): string | null {
  let e: unknown = err;
  for (let depth = 0; e && depth < 8; depth++) {
    if (e instanceof ApplicationFailure && e.type) return e.type;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** Whether a call failed because its workflow has already closed (or never existed). */
export function workflowEnded(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError) return true;
  // A signal or Update to a closed run: the server's NOT_FOUND carries this text, with no error class of its own.
  return /workflow execution already completed/i.test(String((err as Error)?.message));
}

/**
 * The answer for a Temporal failure a caller should see: each ApplicationFailure type the workflow uses to
 * refuse (an Update's validator, a failed run) maps to an AppError; anything else is rethrown as it is (an
 * engine error becomes a 503 in the error handler).
 */
export function failureAnswer(err: unknown, answers: Record<string, (message: string) => AppError>): unknown {
  const type = failureTypeOf(err);
  if (type && answers[type]) {
    let e: unknown = err;
    while (e && !(e instanceof ApplicationFailure)) e = (e as { cause?: unknown }).cause;
    return answers[type]((e as ApplicationFailure).message);
  }
  return err;
}

/**
 * Starts a workflow under the request deadline, by its function (typed arguments). With `once`, an id that is
 * already running is not an error: the caller gets that run's handle (an idempotent start).
 */
export async function startWorkflow<W extends Workflow>(
  client: Client,
  workflow: W,
  options: WorkflowStartOptions<W>,
  mode: { once?: boolean } = {},
): Promise<{ handle: WorkflowHandle<W>; started: boolean }> {
  try {
    const handle = await withinDeadline(client, () => client.workflow.start(workflow, options));
    return { handle, started: true };
  } catch (err) {
    if (mode.once && err instanceof WorkflowExecutionAlreadyStartedError) {
      return { handle: client.workflow.getHandle<W>(options.workflowId), started: false };
    }
    throw err;
  }
}
