import { useTestApi } from '../support/harness';
import { approvedToken } from '../agents/agent-helpers';
import { brandCaller, confirmPin, freshPhone, type BrandCaller } from '../signup/signup-helpers';

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe('confirm-pin limits: links cost money and hold names for a day', () => {
  const ctx = useTestApi({
    CONFIRM_PIN_PER_CALLER_PER_HOUR: '4',
    CONFIRM_PIN_PER_RECIPIENT_PER_DAY: '2',
    ACCESS_REQUEST_RATE_PER_HOUR: '0',
  });

  it('one recipient gets at most the links allowed a day, whoever asks; a taken name does not count', async () => {
    const [first, second] = [
      await brandCaller(ctx.api, ctx.admin, 'Recipient One'),
      await brandCaller(ctx.api, ctx.admin, 'Recipient Two'),
    ];
    const victim = freshPhone();
    expect((await confirmPin(ctx.api, first, { name: 'HARASS-1', identifier: victim })).status).toBe(202);
    // taken: no link
    expect((await confirmPin(ctx.api, first, { name: 'HARASS-1', identifier: victim })).status).toBe(404);
    expect((await confirmPin(ctx.api, second, { name: 'HARASS-2', identifier: victim })).status).toBe(202);
    const refused = await confirmPin(ctx.api, second, { name: 'HARASS-3', identifier: victim });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toBe('At most 2 signup links per day to one recipient');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The refused name was not held: another recipient can have it.
    expect((await confirmPin(ctx.api, second, { name: 'HARASS-3', identifier: freshPhone() })).status).toBe(202);
    // The same address in another case is the same recipient (e-mail).
    const third = await brandCaller(ctx.api, ctx.admin, 'Recipient Three');
    for (const [i, to] of ['victim@limits.test', 'Victim@Limits.test'].entries()) {
      expect((await confirmPin(ctx.api, third, { name: `MAILED-${i}`, channel: 'email', identifier: to })).status).toBe(
        202,
      );
    }
    const again = await confirmPin(ctx.api, third, {
      name: 'MAILED-2',
      channel: 'email',
      identifier: 'VICTIM@limits.test',
    });
    expect(again.body.detail).toBe('At most 2 signup links per day to one recipient');
  });

  it('one agent token makes at most the calls allowed an hour; another token is not affected', async () => {
    const caller = await brandCaller(ctx.api, ctx.admin, 'Busy Agent');
    const agent = {
      ...caller,
      token: (await approvedToken(ctx.api, ctx.admin, caller.client)).token,
      headers: {} as BrandCaller['headers'],
    };
    const other = { ...agent, token: (await approvedToken(ctx.api, ctx.admin, caller.client)).token };
    const statuses = [];
    for (const name of names('BUSY', 5))
      statuses.push((await confirmPin(ctx.api, agent, { name, identifier: freshPhone() })).status);
    expect(statuses).toEqual([202, 202, 202, 202, 429]);
    expect((await confirmPin(ctx.api, other, { name: 'CALM-0', identifier: freshPhone() })).status).toBe(202);
  });
});
