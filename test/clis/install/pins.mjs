// The agent CLI versions the real-CLI suite runs against. Change one here and re-run
// `npm run test:clis`; the installer replaces only the CLIs whose version changed. An environment
// variable (CLAUDE_VERSION, CODEX_VERSION, PI_VERSION, OPENCODE_VERSION, GEMINI_VERSION) overrides
// a pin for one run.
export const PINS = [
  { cli: 'claude', pkg: '@anthropic-ai/claude-code', version: '2.1.330' },
  { cli: 'codex', pkg: '@openai/codex', version: '0.169.0' },
  { cli: 'pi', pkg: '@mariozechner/pi-coding-agent', version: '0.73.1' },
  { cli: 'opencode', pkg: 'opencode-ai', version: '1.18.33' },
  { cli: 'gemini', pkg: '@google/gemini-cli', version: '0.61.0' },
].map((p) => ({ ...p, version: process.env[`${p.cli.toUpperCase()}_VERSION`] || p.version }));
