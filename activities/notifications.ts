import { log } from '@temporalio/activity';
import type { Channels } from '../src/notifications/channels';
import type { OutboundMessage } from '../src/notifications/message';

export function createNotificationActivities(deps: { channels: Channels }) {
  return {
    async sendMessage(message: OutboundMessage): Promise<void> {
      const driver = deps.channels[message.channel];
      await driver.send(message);
      log.info('message delivered', { message_id: message.id, channel: message.channel, driver: driver.name });
    },
  };
}
