// The offline set-up of each real CLI: config files in a private HOME under `state`, and the
// environment to run it with, pointed at the fake model server. The environment is the child's
// whole environment (no real API key from ours can leak in). Each line below exists because the CLI
// otherwise reaches the network, asks a question, or refuses to start without it (measured on the
// pinned versions in install/pins.mjs).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentKind } from '../../src/agents/types.js';

const KEY = 'dummy-not-a-secret'; // the fake server takes any key

/** Writes `text` to `file`, creating its folder; `keep` leaves an existing file (a session's) alone. */
function write(file: string, text: string, keep = false): void {
  if (keep && existsSync(file)) return;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/**
 * Prepares `state` (home/, tmp/, work/) for `kind` and returns its environment. Reuse `state` for
 * the turns of one session. `base` is the fake server's URL for one scenario, without `/v1`.
 */
export function cliEnv(kind: AgentKind, state: string, base: string, binDir: string): Record<string, string> {
  const home = join(state, 'home');
  for (const d of [home, join(state, 'tmp'), join(state, 'work')]) mkdirSync(d, { recursive: true });
  const env: Record<string, string> = {
    // The CLIs first; then ours, for the Node that pi and gemini run on and the tools they call.
    PATH: `${binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    LANG: 'C.UTF-8',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    // Outside CODEX_HOME: codex warns when its home lies under TMPDIR.
    TMPDIR: join(state, 'tmp'),
    // The run's compile cache (test/setup/compile-cache.ts), as the relay gives its runs one: pi's and
    // gemini's bundles are tens of MB of JavaScript that Node compiled again at every start.
    ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
  };
  return { ...env, ...SETUP[kind]!(home, base) };
}

const SETUP: Record<AgentKind, (home: string, base: string) => Record<string, string>> = {
  claude: (_home, base) => ({
    ANTHROPIC_BASE_URL: base,
    ANTHROPIC_API_KEY: KEY,
    // With these four a `-p` run makes exactly one connection: the model request.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    // Else a 401 is retried ten times over about three minutes.
    CLAUDE_CODE_MAX_RETRIES: '0',
  }),

  codex: (home, base) => {
    // codex ignores OPENAI_BASE_URL and speaks only the Responses API; `env_key` names the variable.
    write(
      join(home, '.codex', 'config.toml'),
      [
        'model = "gpt-5.5"', // in codex's bundled catalog: another slug adds a warning item
        'model_provider = "fake"',
        'check_for_update_on_startup = false',
        '',
        '[model_providers.fake]',
        'name = "fake model (loopback)"',
        `base_url = "${base}/v1"`,
        'env_key = "FAKE_OPENAI_API_KEY"',
        'wire_api = "responses"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
        '[analytics]',
        'enabled = false',
        '',
        '[features]',
        'plugins = false', // else every start runs `git ls-remote` against github.com
        '',
      ].join('\n'),
    );
    return { CODEX_HOME: join(home, '.codex'), FAKE_OPENAI_API_KEY: KEY };
  },

  pi: (home, base) => {
    const dir = join(home, '.pi', 'agent');
    const model = { id: 'fake-model', name: 'Fake Model', contextWindow: 128000, maxTokens: 16384 };
    write(
      join(dir, 'models.json'),
      JSON.stringify({
        providers: {
          fake: {
            baseUrl: `${base}/v1`,
            api: 'openai-completions',
            apiKey: 'FAKE_OPENAI_API_KEY',
            models: [model],
          },
        },
      }),
    );
    write(
      join(dir, 'settings.json'),
      JSON.stringify({
        defaultProvider: 'fake',
        defaultModel: 'fake-model',
        quietStartup: true,
        enableInstallTelemetry: false,
      }),
      true,
    );
    // PI_OFFLINE: no update check, no telemetry.
    return { PI_CODING_AGENT_DIR: dir, PI_OFFLINE: '1', FAKE_OPENAI_API_KEY: KEY };
  },

  opencode: (home, base) => {
    // The OpenAI-compatible provider is bundled in the binary: nothing is downloaded.
    write(
      join(home, '.config', 'opencode', 'opencode.json'),
      JSON.stringify({
        model: 'fake/fake-model',
        small_model: 'fake/fake-model',
        autoupdate: false,
        share: 'disabled',
        provider: {
          fake: {
            npm: '@ai-sdk/openai-compatible',
            name: 'fake model (loopback)',
            options: { baseURL: `${base}/v1`, apiKey: '{env:FAKE_OPENAI_API_KEY}' },
            models: { 'fake-model': { name: 'Fake Model', limit: { context: 128000, output: 16384 } } },
          },
        },
      }),
    );
    return {
      // MODELS_FETCH: else it fetches models.dev first (a 10 s timeout offline).
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_SHARE: '1',
      FAKE_OPENAI_API_KEY: KEY,
    };
  },

  gemini: (home, base) => {
    // selectedType is required: with the base URL alone, headless gemini exits 41 ("Invalid auth
    // method selected"). Session retention off: its start-up cleanup can delete a resumed session.
    write(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: {
          enableAutoUpdate: false,
          enableAutoUpdateNotification: false,
          sessionRetention: { enabled: false },
        },
      }),
      true,
    );
    return {
      GEMINI_API_KEY: KEY,
      GOOGLE_GEMINI_BASE_URL: base,
      // Else it exits 55 in an untrusted folder; NO_RELAUNCH skips a self-respawn (~0.5 s).
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    };
  },
};
