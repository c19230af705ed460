import { tenantQuery } from '../lib/tenancy';
import { PinModel } from './pin.model';

/** Pins claimed in [start, end) (the pin's creation), of one client or all, in one country or all. */
export function pinsCreated(clientId: string | null, country: string | null, start: Date, end: Date): Promise<number> {
  // The pin registry is global, not tenant-owned: the client filter is written out here.
  return PinModel.countDocuments({
    ...tenantQuery(clientId).filter,
    ...(country ? { country_code: country } : {}),
    created_at: { $gte: start, $lt: end },
  }).exec();
}
