// What other areas use from integrations: a brand's provider key (see key-store.ts; the service binds it
// to the process's key ring as the integrations module's `service.activeCredential`), and relay usage
// (recordRelayCalls stores calls made outside a relay; relayUsageTotals is what the admin KPIs' relay figures read).
export { activeCredential, type KeyQuery } from './key-store';
export { recordRelayCalls, relayUsageTotals } from './usage';
