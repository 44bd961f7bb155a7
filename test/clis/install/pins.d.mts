// Types for pins.mjs (plain JS so that the installer runs on Node alone, before any build).
export declare const PINS: readonly {
  cli: 'claude' | 'codex' | 'pi' | 'opencode' | 'gemini';
  pkg: string;
  version: string;
}[];
