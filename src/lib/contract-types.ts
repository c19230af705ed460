/**
 * The contract's types, as the client package generates them from openapi.yaml (npm run generate:client): one
 * generation serves the client and the service. The service reads them through this file only, and as types:
 * nothing of the client package runs in the service, and the client package stays publishable on its own.
 */
import type { components, operations } from '../../packages/client/src/generated/openapi';

export type Schemas = components['schemas'];

/** The parameters the contract declares once and many operations share (Page, PageSize, …), by name. */
export type SharedParameters = components['parameters'];

/**
 * A contract type without the members K, taken from each member of a union on its own (a body that is one of several
 * shapes stays one of several shapes; `Omit` would keep only the members all shapes share).
 */
export type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A contract type whose members K are given (query parameters the contract gives a default, once it is applied). */
export type Defaulted<T, K extends keyof T> = Omit<T, K> & Required<Pick<T, K>>;

/** Every operation the contract declares, by its operationId. */
export type OperationId = keyof operations;

/** What the generator writes as `x?: never` (nothing declared) becomes an object with no member to read. */
type Declared<T> = [NonNullable<T>] extends [never] ? Record<never, never> : NonNullable<T>;

/** An operation's path parameters, as the request validator leaves them (an integer is a number). */
export type PathParams<Op extends OperationId> = Declared<operations[Op]['parameters']['path']>;

/** Its query parameters, as the request validator leaves them: coerced to their declared types. */
export type QueryParams<Op extends OperationId> = Declared<operations[Op]['parameters']['query']>;

type RequestBodyOf<Op extends OperationId> = NonNullable<operations[Op]['requestBody']>;

/** The JSON body an operation takes (never for one that takes none). */
export type JsonBody<Op extends OperationId> = [RequestBodyOf<Op>] extends [never]
  ? never
  : RequestBodyOf<Op> extends { content: { 'application/json': infer Body } }
    ? Body
    : never;

/** The HTML form body an operation takes (its fields as text; never for one that takes none). */
export type FormBody<Op extends OperationId> = [RequestBodyOf<Op>] extends [never]
  ? never
  : RequestBodyOf<Op> extends { content: { 'application/x-www-form-urlencoded': infer Body } }
    ? Body
    : never;

/**
 * The body a handler reads: the JSON body the contract declares (undefined for an operation that declares none;
 * optional when the contract does not require it).
 */
export type RequestBody<Op extends OperationId> = [RequestBodyOf<Op>] extends [never]
  ? undefined
  : undefined extends operations[Op]['requestBody']
    ? JsonBody<Op> | undefined
    : JsonBody<Op>;

type Responses<Op extends OperationId> = operations[Op]['responses'];

/** The statuses an operation's answers may have. */
export type Status<Op extends OperationId> = keyof Responses<Op> & number;

/** The media types and their bodies an operation declares for the statuses S (none for an undeclared one). */
type ContentAt<Op extends OperationId, S> = S extends keyof Responses<Op>
  ? Responses<Op>[S] extends { content: infer Content }
    ? Content
    : never
  : never;

/** The JSON body of an operation's answer with the statuses S. */
export type JsonAnswer<Op extends OperationId, S> =
  ContentAt<Op, S> extends infer Content ? (Content extends { 'application/json': infer Body } ? Body : never) : never;

/**
 * What an answer with the statuses S may send as it is: text or bytes where the contract declares a media type
 * other than JSON (CSV, HTML, YAML, Markdown, an image) for it, nothing otherwise.
 */
export type RawAnswer<Op extends OperationId, S> =
  ContentAt<Op, S> extends infer Content
    ? Content extends object
      ? [Exclude<keyof Content, 'application/json'>] extends [never]
        ? never
        : string | Buffer
      : never
    : never;
