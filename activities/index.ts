import type { Modules } from '../src/services';

/** The secrets a client's deliveries (job webhooks, deploy hook) are signed with at this moment. */
export interface WebhookSigning {
  signingSecrets(clientId: string): Promise<string[]>;
}

/** The activities one area module registers (none for a module without `activities`, or a process without them). */
type ModuleActivities<Module> = Module extends { activities: infer A } ? NonNullable<A> : never;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every activity a set of area modules registers, by name: each module's `activities`, merged. */
export type ActivitiesOf<M> = UnionToIntersection<{ [Area in keyof M]: ModuleActivities<M[Area]> }[keyof M]>;

/**
 * What workflows call (proxyActivities<Activities>): the activities of the area modules (src/services.ts, each
 * src/<area>/<area>.module.ts), derived from what they register, so a dropped or renamed activity fails the
 * typecheck of the workflow that calls it.
 */
export type Activities = ActivitiesOf<Modules>;

/** The names of the activities one module registers. */
type ActivityNames<Module> = Module extends { activities: infer A } ? keyof NonNullable<A> : never;

/** The names two modules both register (the worker would keep only one of them). */
export type SharedActivityNames<M> = {
  [Area in keyof M]: ActivityNames<M[Area]> &
    { [Other in Exclude<keyof M, Area>]: ActivityNames<M[Other]> }[Exclude<keyof M, Area>];
}[keyof M];

/** Every activity name belongs to one module: a name registered twice shows here as a type error. */
const _namesAreUnique: [SharedActivityNames<Modules>] extends [never]
  ? true
  : { registeredTwice: SharedActivityNames<Modules> } = true;

/**
 * Every activity the workflows call, from the area modules that own them: the worker registers exactly these.
 * (Modules without activities add nothing.)
 */
export function createActivities<M extends object>(modules: M): ActivitiesOf<M> {
  const areas = Object.values(modules) as { activities?: object }[];
  return Object.assign({}, ...areas.map((m) => m.activities ?? {}));
}
