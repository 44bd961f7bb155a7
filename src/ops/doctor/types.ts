// What doctor reports: one finding per thing checked, each with what is wrong and how to fix it.
// Findings never carry secret values: checks say "set" or "missing", never what a value is.

export type FindingStatus = 'ok' | 'warn' | 'fail';

export interface Finding {
  /** Which check, e.g. `node`, `config`, `permissions`, `agent:claude`, `twilio`. */
  check: string;
  status: FindingStatus;
  message: string;
  /** What to do about it (a command where there is one). */
  fix?: string;
}

export const ok = (check: string, message: string): Finding => ({ check, status: 'ok', message });
export const warn = (check: string, message: string, fix?: string): Finding => ({
  check,
  status: 'warn',
  message,
  ...(fix && { fix }),
});
export const fail = (check: string, message: string, fix?: string): Finding => ({
  check,
  status: 'fail',
  message,
  ...(fix && { fix }),
});

/** Exit 0 only when every finding is ok. */
export const allWell = (findings: readonly Finding[]): boolean => findings.every((f) => f.status === 'ok');
