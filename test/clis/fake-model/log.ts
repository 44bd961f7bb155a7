// The server's record of every request, per scenario: tests read it to check what a CLI really sent
// (the prompt, the model, the system text, a resumed turn's history). No headers: they hold keys.
import type { Api } from './scenario.js';

export interface LoggedRequest {
  seq: number;
  at: string;
  scenario: string;
  /** `model`: a turn the scenario answered; `other`: token counts, model lists, unknown routes. */
  kind: 'model' | 'other';
  api?: Api;
  method: string;
  path: string;
  /** What it got: `text`, `tool <name>`, `error <status>`, `hang`, `json-mode`, or the route's own answer. */
  answer: string;
  body: unknown;
}

export class RequestLog {
  private readonly entries: LoggedRequest[] = [];
  private seq = 0;

  add(entry: Omit<LoggedRequest, 'seq' | 'at'>): void {
    this.entries.push({ seq: ++this.seq, at: new Date().toISOString(), ...entry });
    // Bounded: a long suite makes thousands of requests, each carrying the whole conversation.
    if (this.entries.length > 5000) this.entries.shift();
  }

  list(scenario?: string): LoggedRequest[] {
    return scenario === undefined ? [...this.entries] : this.entries.filter((e) => e.scenario === scenario);
  }

  clear(): void {
    this.entries.length = 0;
  }
}
