// The ACP library, loaded by the first ACP process instead of at start-up: a relay whose agents are
// claude, codex or pi never loads it, as a Twilio-only relay never loads Baileys (DESIGN.md rule 9's
// exception, for the same reason: about 25 ms of start-up CPU and 2.7 MiB of memory, measured with
// bench/startup and docs/performance.md).
import type * as Sdk from '@agentclientprotocol/sdk';

export type AcpSdk = typeof Sdk;

let sdk: AcpSdk | undefined;

export async function acpSdk(): Promise<AcpSdk> {
  sdk ??= await import('@agentclientprotocol/sdk');
  return sdk;
}

/** The library once `acpSdk()` has loaded it: every connection was made after that. */
export function loadedAcpSdk(): AcpSdk {
  if (!sdk) throw new Error('the ACP library is not loaded yet');
  return sdk;
}

/** An error the agent answered a request with (only the library, once loaded, makes these). */
export const isAcpRequestError = (err: unknown): boolean =>
  sdk !== undefined && err instanceof sdk.RequestError;

/** The words of an agent's error answer: its message and its data, for telling its kind. */
export function acpRejectionText(error: unknown): string {
  const e = error as { message?: string; data?: unknown };
  return [e.message, typeof e.data === 'string' ? e.data : JSON.stringify(e.data ?? '')].join(' ');
}
