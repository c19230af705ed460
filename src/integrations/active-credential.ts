// The one function other areas use to get a brand's provider key (see key-store.ts); the integrations
// service exposes it bound to the process's key ring as `services.integrations.activeCredential`.
export { activeCredential, type KeyQuery } from './key-store';
export { recordRelayCall } from './usage';
