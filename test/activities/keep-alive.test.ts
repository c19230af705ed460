import { MockActivityEnvironment } from '@temporalio/testing';
import { heartbeat, keepAlive } from '../../activities/heartbeats';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Time is the subject: keepAlive repeats a checkpoint on its own interval while the activity waits.
describe('keepAlive', () => {
  it('keeps repeating the checkpoint the activity heartbeated last, or else the one it started from', async () => {
    const env = new MockActivityEnvironment({ heartbeatDetails: { next: 2 } });
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    let checkpointAt = 0;
    await env.run(() =>
      keepAlive(async () => {
        await pause(1300); // waiting its turn: the starting checkpoint is repeated
        checkpointAt = beats.length;
        heartbeat({ next: 5 });
        await pause(2300); // waiting again: now the new one is
      }),
    );
    expect(checkpointAt).toBeGreaterThanOrEqual(1);
    expect(new Set(beats.slice(0, checkpointAt).map((b) => JSON.stringify(b)))).toEqual(
      new Set([JSON.stringify({ next: 2 })]),
    );
    expect(beats.length - checkpointAt).toBeGreaterThanOrEqual(2);
    expect(new Set(beats.slice(checkpointAt).map((b) => JSON.stringify(b)))).toEqual(
      new Set([JSON.stringify({ next: 5 })]),
    );
  });
});
