import type { ServiceSchedule } from '../lib/engines/schedules';
import { digestTickWorkflow } from '../../workflows/digests';

/** The hourly digest tick: a tick let go sends nothing twice, the next sends what is due. */
export const digestSchedule: ServiceSchedule = { name: 'digest-tick', every: '1 hour', workflow: digestTickWorkflow };
