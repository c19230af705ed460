import { randomBytes } from 'node:crypto';
import { createTemporalClient } from '../../src/lib/engines/temporal';
import { freePort } from '../../tools/devstack/ports';
import { EncryptionCodec } from '../../src/lib/engines/payload-codec';

const codec = new EncryptionCodec(randomBytes(32).toString('hex'));

describe('Temporal client', () => {
  it('fails a call whose retry waits when the connection closes, not throwing from the retry timer', async () => {
    const client = createTemporalClient({ address: `127.0.0.1:${await freePort()}` }, 'default', codec);
    const call = client.workflowService.getSystemInfo({}).then(
      () => 'answered',
      (err: Error) => err.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 50)); // the first attempt is refused; the retry waits
    await client.connection.close();
    expect(await call).toMatch(/^1 CANCELLED: Temporal connection closed/);
  });

  it('fails a call made after the connection closed', async () => {
    const client = createTemporalClient({ address: `127.0.0.1:${await freePort()}` }, 'default', codec);
    await client.connection.close();
    await expect(client.workflowService.getSystemInfo({})).rejects.toThrow(/^1 CANCELLED: Temporal connection closed/);
  });
});
