// Group metadata cached for Baileys' `cachedGroupMetadata`: without it every group send fetches the
// participant list and bursts hit WhatsApp's rate-overlimit (Baileys#1061). Refreshed by group events.
import type { GroupMetadata } from '@whiskeysockets/baileys';

export class GroupCache {
  private readonly entries = new Map<string, { meta: GroupMetadata; at: number }>();

  constructor(
    private readonly ttlMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 500,
  ) {}

  get(jid: string): GroupMetadata | undefined {
    const e = this.entries.get(jid);
    if (!e) return undefined;
    if (this.now() - e.at > this.ttlMs) {
      this.entries.delete(jid);
      return undefined;
    }
    return e.meta;
  }

  set(meta: GroupMetadata): void {
    this.entries.delete(meta.id);
    this.entries.set(meta.id, { meta, at: this.now() });
    // Map keeps insertion order: the first key is the least recently stored.
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /** `groups.update` carries partial metadata: merge into a cached entry, else ignore. */
  update(partial: Partial<GroupMetadata>): void {
    const current = partial.id ? this.get(partial.id) : undefined;
    if (current) this.set({ ...current, ...partial, id: current.id });
  }

  /** Participant changes make the cached list wrong: fetch afresh on the next send. */
  invalidate(jid: string): void {
    this.entries.delete(jid);
  }
}
