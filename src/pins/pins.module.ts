import type { Infra } from '../infra';
import type { AreaModule } from '../lib/module';
import { createPinActivities } from '../../activities/pins';
import { createPinsService } from './pins.service';
import { pinsRoutes } from './pins.routes';
import { createPinWorkflows } from './pins.workflows';
import { createSignupService } from './signup/signup.service';
import { signupPage } from './signup/signup.page';
import { createSignupTokens, signingKeys } from './signup/tokens';
import type { MapsCredentialLookup } from './signup/maps-key';

export type PinsDeps = Pick<
  Infra,
  | 'config'
  | 'engines'
  | 'notifier'
  | 'ring'
  | 'brands'
  | 'outbound'
  | 'recorder'
  | 'credentialsKey'
  | 'publicBaseUrl'
  | 'clock'
> & {
  /** The brand's maps credential (the integrations area), for the signup page's map. */
  mapsCredential: MapsCredentialLookup;
};

/**
 * The pin registry: resolve, search and preview pins, and the claim of a name, from confirm-pin's hold (a
 * workflow per name) through the end user's signup page to the written pin and its pin_created callback.
 */
export function createPinsModule(deps: PinsDeps) {
  const { config, engines } = deps;
  const signup = createSignupService({
    workflows: createPinWorkflows(engines.temporal, config.TEMPORAL_TASK_QUEUE),
    redis: engines.redis,
    clock: deps.clock,
    notifier: deps.notifier,
    ring: deps.ring,
    tokens: createSignupTokens(signingKeys(config.SIGNUP_TOKEN_KEYS, deps.credentialsKey)),
    publicBaseUrl: deps.publicBaseUrl,
    reservationTtlSeconds: config.PIN_RESERVATION_TTL_SECONDS,
    linkSendWaitMs: config.SIGNUP_LINK_SEND_WAIT_MS,
    completeWaitMs: config.PIN_COMPLETE_WAIT_MS,
    callback: { initial_ms: config.PIN_CALLBACK_RETRY_INITIAL_MS, total_seconds: config.PIN_CALLBACK_RETRY_SECONDS },
    mapsCredential: deps.mapsCredential,
    confirmLimits: {
      perCallerPerHour: config.CONFIRM_PIN_PER_CALLER_PER_HOUR,
      perRecipientPerDay: config.CONFIRM_PIN_PER_RECIPIENT_PER_DAY,
    },
  });
  const pins = createPinsService(config, engines.redis);
  return {
    handlers: pinsRoutes({ pins, signup, brands: deps.brands.lookup, outbound: deps.outbound }),
    pages: { '/signup': signupPage(signup) },
    activities: createPinActivities({
      activity: { recorder: deps.recorder },
      pins: { search: config, redis: engines.redis, ring: deps.ring },
      outbound: deps.outbound,
    }),
  } satisfies AreaModule;
}
