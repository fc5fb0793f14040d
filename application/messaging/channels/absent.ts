import { NO_PROVIDER, type MessageChannel } from '../../../domain/messaging/events.ts';
import type { ChannelOutcome, MessageChannelPort } from './port.ts';

/** A channel the deployment does not have: every message on it ends NOT_SENT with `reason`, nothing kept. */
export class AbsentChannel implements MessageChannelPort {
  readonly provider = NO_PROVIDER;
  constructor(
    readonly channel: MessageChannel,
    private readonly reason: string,
  ) {}

  async send(): Promise<ChannelOutcome> {
    return { notSent: this.reason, sandbox: false };
  }

  async close(): Promise<void> {}
}
