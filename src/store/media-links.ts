// The media-links port's types, whatever the engine (the SQLite engine: store/sqlite/media-links.ts).

export interface MediaLink {
  mimeType: string;
  sizeBytes: number;
  expiresAt: number;
}

export interface MediaLinkStore {
  add(name: string, link: MediaLink): Promise<void>;
  get(name: string): Promise<MediaLink | undefined>;
  /** Names whose link expired at `now` or before. */
  expired(now: number): Promise<string[]>;
  remove(name: string): Promise<void>;
}
