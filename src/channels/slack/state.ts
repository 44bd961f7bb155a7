// The channel's small durable state, in the store's generic channel state (ChannelDeps.state):
// conversations sends to which stopped for good (the bot was removed, the channel archived), the
// threads the bot is in (a reply there needs no mention), and the envelopes already handled (Slack
// delivers an event again when its acknowledgement was late or lost, also across a restart).
import type { ChannelStateStore } from '../../store/channel-state.js';

const stoppedKey = (conversation: string) => `stopped:${conversation}`;
const threadKey = (conversation: string, ts: string) => `thread:${conversation}:${ts}`;
const HANDLED = 'handled';
const STOPPED_LIST = 'stopped';
/** Slack retries an event three times within about five minutes; this holds far more than that. */
const HANDLED_MAX = 1000;

export interface Stopped {
  error: string;
  at: number;
}

export class SlackState {
  private handled: string[] | undefined;
  private handledSet = new Set<string>();
  /** Writes of the handled list, one after another, so two envelopes never lose each other's ids. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly store: ChannelStateStore) {}

  async stopped(conversation: string): Promise<Stopped | undefined> {
    return this.store.get<Stopped>(stoppedKey(conversation));
  }

  async setStopped(conversation: string, s: Stopped | undefined): Promise<void> {
    await this.store.set(stoppedKey(conversation), s);
    const list = new Set(await this.stoppedList());
    if (s) list.add(conversation);
    else list.delete(conversation);
    await this.store.set(STOPPED_LIST, [...list]);
  }

  /** Every conversation whose sends are stopped (for status). */
  async stoppedList(): Promise<string[]> {
    const v = await this.store.get<string[]>(STOPPED_LIST);
    return Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
  }

  async inThread(conversation: string, ts: string): Promise<boolean> {
    return (await this.store.get(threadKey(conversation, ts))) !== undefined;
  }

  async joinThread(conversation: string, ts: string, at: number): Promise<void> {
    if (!(await this.inThread(conversation, ts))) await this.store.set(threadKey(conversation, ts), at);
  }

  private async load(): Promise<void> {
    if (this.handled) return;
    const v = await this.store.get<string[]>(HANDLED);
    this.handled = Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
    this.handledSet = new Set(this.handled);
  }

  /** True when any of `keys` (event id, client message id) belongs to an envelope already handled. */
  async wasHandled(keys: readonly string[]): Promise<boolean> {
    await this.load();
    return keys.some((k) => this.handledSet.has(k));
  }

  /** Records the keys once the message is durable (stored, a duplicate, a command, or refused). */
  markHandled(keys: readonly string[]): Promise<void> {
    const next = this.chain.then(async () => {
      await this.load();
      const list = this.handled!;
      for (const k of keys) {
        if (this.handledSet.has(k)) continue;
        list.push(k);
        this.handledSet.add(k);
      }
      while (list.length > HANDLED_MAX) this.handledSet.delete(list.shift()!);
      await this.store.set(HANDLED, list);
    });
    this.chain = next.catch(() => undefined);
    return next;
  }
}
