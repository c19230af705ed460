// The entry points' first import: tracing starts before the libraries it instruments (http, MongoDB, Redis) load.
import { startTracingFromEnv } from './lib/tracing';

startTracingFromEnv(process.env);
