// Which Node can run agentwire. Imported by the bin's entry before anything else, so it must stay
// free of imports: on an old Node, loading any module that reaches `node:sqlite` throws
// ERR_UNKNOWN_BUILTIN_MODULE with a stack trace before a single line of ours could run.

/** Node 22.13 is the first release with node:sqlite usable without a flag; the store needs it. */
export const MIN_NODE = [22, 13, 0] as const;

/** Whether `version` (`v22.13.0` or `22.13.0`) is at least MIN_NODE; an unreadable one is not. */
export function nodeIsNewEnough(version: string): boolean {
  const parts = version.replace(/^v/, '').split('-')[0]?.split('.').map(Number) ?? [];
  if (parts.length === 0 || parts.some((p) => !Number.isInteger(p) || p < 0)) return false;
  for (const [i, need] of MIN_NODE.entries()) {
    const have = parts[i] ?? 0;
    if (have !== need) return have > need;
  }
  return true;
}

/** The one line the bin prints on a Node too old to run it, or undefined when this Node will do. */
export function nodeVersionProblem(version: string, execPath: string): string | undefined {
  if (nodeIsNewEnough(version)) return undefined;
  return `agentwire needs Node.js ${MIN_NODE.join('.')} or newer (for node:sqlite), but ${execPath} is ${version}: install Node 24 LTS (https://nodejs.org, or \`nvm install 24\`) and run agentwire with it.`;
}
