import { storeEvents, toEventDoc, type ActivityActor } from '../../src/activity/recorder';
import type { ShippedKind } from '../../src/activity/activity-event.model';

/** Synthetic activity of one actor at the given times (ISO strings or Dates), stored straight in MongoDB. */
export async function seedEvents(
  clientId: string,
  actor: ActivityActor,
  times: (string | Date)[],
  extra: { action?: string; shipped?: ShippedKind | null; label?: string } = {},
) {
  await storeEvents(
    times.map((t, i) =>
      toEventDoc({
        clientId,
        actor,
        action: extra.action ?? 'updatePost',
        at: new Date(t),
        key: `seed-${i}-${new Date(t).getTime()}`,
        shipped: extra.shipped ?? null,
        label: extra.label ?? null,
        subject: { kind: 'post', id: `p-${i}` },
      }),
    ),
  );
}

export const userActor = (id: string, email: string, role: ActivityActor['role'] = 'client_user'): ActivityActor => ({
  id,
  kind: 'user',
  name: email,
  role,
});

/** Minutes after a base time, as a Date. */
export const at = (base: string, minutes: number) => new Date(new Date(base).getTime() + minutes * 60_000);
