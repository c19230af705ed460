import { loadConfig } from '../../src/lib/config';
import { createChannels, outboxOnlyWarnings } from '../../src/notifications/channels';

const production = {
  NODE_ENV: 'production',
  CREDENTIALS_KEY: 'a'.repeat(64),
  PUBLIC_BASE_URL: 'https://leads.example',
};
const warningsFor = (env: Record<string, string>) => {
  const config = loadConfig(env);
  return outboxOnlyWarnings(config, createChannels(config));
};

describe('channels that would reach only the outbox', () => {
  it('are named at start-up in production, per channel, with the settings that fix them', () => {
    expect(warningsFor(production)).toEqual([
      'email goes ONLY to the outbox (nobody receives it): set SENDGRID_API_KEY',
      'sms goes ONLY to the outbox (nobody receives it): set TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM',
    ]);
    expect(warningsFor({ ...production, SENDGRID_API_KEY: 'SG.key' })).toHaveLength(1);
    const twilio = { TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 'token', TWILIO_FROM: '+3197010' };
    expect(warningsFor({ ...production, SENDGRID_API_KEY: 'SG.key', ...twilio })).toEqual([]);
  });

  it('are the expected local default elsewhere', () => {
    expect(warningsFor({})).toEqual([]);
  });
});
