/**
 * The contract's types, as the client package generates them from openapi.yaml (npm run generate:client), for
 * the places where the service states a shape the contract already states. Types only: nothing of the client
 * package runs in the service.
 */
import type { components, operations } from '../../packages/client/src/generated/openapi';

export type Schemas = components['schemas'];

/** The JSON body an operation takes. */
export type JsonBody<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;
