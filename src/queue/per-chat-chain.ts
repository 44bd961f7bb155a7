// Calls for one chat run in call order, each after the last one settled; other chats' calls do not
// wait. The process owner's takes and drops of a chat's lease go through one: with an engine that
// answers later, a take must not renew a lease that a drop called before it then releases.
import type { ChatKey } from '../core/types.js';

export class PerChatChain {
  private readonly chains = new Map<ChatKey, Promise<void>>();

  run<T>(chat: ChatKey, fn: () => Promise<T>): Promise<T> {
    const next = (this.chains.get(chat) ?? Promise.resolve()).then(fn);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(chat, tail);
    void tail.then(() => {
      if (this.chains.get(chat) === tail) this.chains.delete(chat);
    });
    return next;
  }
}
