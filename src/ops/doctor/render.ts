// The human view of doctor's findings: one line each, the fix under anything not ok, a summary.
import type { Finding } from './types.js';

const TAG = { ok: '[ok]  ', warn: '[warn]', fail: '[FAIL]' } as const;

export function renderFindings(findings: readonly Finding[]): string {
  const width = Math.max(...findings.map((f) => f.check.length), 6);
  const lines: string[] = [];
  for (const f of findings) {
    const [first, ...rest] = f.message.split('\n');
    lines.push(`${TAG[f.status]} ${f.check.padEnd(width)}  ${first}`);
    for (const r of rest) lines.push(`${' '.repeat(width + 9)}${r}`);
    if (f.fix && f.status !== 'ok') lines.push(`${' '.repeat(width + 9)}fix: ${f.fix}`);
  }
  const fails = findings.filter((f) => f.status === 'fail').length;
  const warns = findings.filter((f) => f.status === 'warn').length;
  lines.push(
    '',
    fails + warns === 0
      ? 'All is well.'
      : `${fails} problem${fails === 1 ? '' : 's'}, ${warns} warning${warns === 1 ? '' : 's'}.`,
  );
  return `${lines.join('\n')}\n`;
}
