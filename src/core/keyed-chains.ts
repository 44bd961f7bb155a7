// Tasks run one after another per key, keys side by side: the warm pool's turns of one session
// (several chats share one under `sessions.scope: 'global'`), WhatsApp's handling of one chat's
// messages in the order they came. A task that fails does not stop the ones queued behind it.

export class KeyedChains {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `task` once every task queued before it under `key` has ended; resolves as `task` does. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(task);
    const tail = next.then(
      () => {},
      () => {},
    );
    this.tails.set(key, tail);
    // A key with nothing queued is forgotten: a chat that wrote once holds no memory.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Keys with a task queued or running. */
  get size(): number {
    return this.tails.size;
  }

  /** Resolves when every task queued so far, and any queued meanwhile, has ended. */
  async drain(): Promise<void> {
    while (this.tails.size) await Promise.allSettled([...this.tails.values()]);
  }
}
