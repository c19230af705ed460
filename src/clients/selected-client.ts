import { AppError } from '../lib/errors';
import { ClientModel } from './client.model';

/**
 * A super_admin names the client it writes for with X-Selected-Client-Id; that must be an existing
 * client (422 otherwise, as when it names none), or the record would belong to no tenant. Everybody
 * else always acts for their own client.
 */
export async function assertSelectedClient(clientId: string, isSuperAdmin: boolean): Promise<void> {
  if (isSuperAdmin && !(await ClientModel.exists({ _id: clientId }))) {
    throw AppError.invalid('X-Selected-Client-Id names no client', [
      { location: 'header', field: 'X-Selected-Client-Id', message: 'no such client' },
    ]);
  }
}
