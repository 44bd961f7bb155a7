// The agent layer's contract: an AgentSpec describes one CLI as data plus two small functions.
import type { ProgressListener, ProgressStep } from '../core/progress-event.js';
import type { Sandbox } from '../core/sandbox.js';

/**
 * A CLI's name in the config, the store and `/agent`: whatever an AgentSpec in agents/registry.ts
 * registers. Not a closed union, so that adding a CLI is one spec file and one registry line (the
 * list of kinds is AGENT_KINDS in agents/registry.ts).
 */
export type AgentKind = string;

export type SessionRef =
  /** A new session; `id` is set when the relay may choose it (claude, gemini) or a file path (pi). */
  { type: 'new'; id?: string } | { type: 'resume'; id: string };

export interface BuildContext {
  prompt: string;
  session: SessionRef;
  /** The program and fixed leading arguments (config `agent.command`). */
  command: readonly string[];
  cwd: string;
  model?: string;
  thinking?: string;
  /** Identity / system text for CLIs that accept one. */
  systemText?: string;
  /** The state folder for this agent (e.g. where pi session files live). */
  stateDir: string;
  /**
   * Run under the CLI's read-only sandbox where it has one (codex: `sandbox_mode = "read-only"`);
   * a member's or guest's run by default (docs/access.md). CLIs without one ignore it.
   */
  readOnly?: boolean;
  /**
   * `false`: keep the CLI off its own network tools where that can be said (claude's WebFetch and
   * WebSearch, codex's web search, opencode's webfetch and websearch); a member's or guest's run by
   * default (docs/access.md). Absent or `true`: as the CLI is configured.
   */
  networkTools?: boolean;
  /** The run's environment, where a spec merges a variable of its own over the user's. */
  env?: Readonly<Record<string, string>>;
}

/** A CLI's own state, as the sandbox binds it. */
export interface CliState {
  /** Folders the CLI writes (made 0700 before binding when missing). */
  dirs: string[];
  /** Single files it keeps beside them (claude's ~/.claude.json), made when missing. */
  files: string[];
  /** Files it only reads, named by the environment (a credentials file). */
  readFiles: string[];
}

export interface Invocation {
  argv: string[];
  /** Fed to stdin then closed; stdin is ignored when absent. */
  stdin?: string;
  /** Added to the explicit base environment. */
  env?: Record<string, string>;
  /**
   * The session id this run uses when known up front (relay-chosen). For pi it is the session file,
   * which is what a later `--session` needs, so it wins over the id the CLI prints.
   */
  sessionId?: string;
}

/** agentwire's MCP server (`agentwire mcp`) for one run; see tool-server.ts. */
export interface ToolServer {
  /** Absolute program (this Node) and its arguments: `[…/cli/bin.js, 'mcp']`. */
  command: string;
  args: readonly string[];
  /** TOOLS_TOKEN_ENV and TOOLS_SOCKET_ENV. Secret: never in argv, never logged. */
  env: Readonly<Record<string, string>>;
  /** Our tool names, for CLIs that must allow each one explicitly. */
  tools: readonly string[];
  /**
   * The server also offers the user's own tools (tools.servers, tools.scripts), whose names are
   * known only once it lists them: a CLI that allows tools by name allows the whole server.
   */
  userTools?: boolean;
  /**
   * How long one tool call may take before the CLI gives up on it: `ask_user` waits for the person.
   * Given to each CLI as its MCP tool-call timeout (docs/tools.md, "Timeouts").
   */
  callTimeoutMs: number;
  /**
   * The same tools as an extension loaded into the CLI's own process, for a CLI without MCP
   * (src/cli/tool-extension.ts), as this install has it built: bundled into one file by `npm run
   * build`, else tsc's module. Absent: tsc's module beside `args[0]` (TOOL_EXTENSION).
   */
  toolExtension?: string;
}

/**
 * agentwire's MCP server for a warm process, which outlives its runs: started once with
 * a token of its own, which acts only while a turn has bound it to that turn's run.
 */
export interface ProcessTools {
  /** The session key (session scope) the process serves: a run of another cannot bind it. */
  sessionKey: string;
  server: ToolServer;
  /** The process closed: its token is refused from now on. */
  close(): void;
}

export type ToolBinding = { type: 'bound'; unbind(): void } | { type: 'refused'; reason: string };

/** This run's tools as a warm process takes them (the pool opens a process's, binds it per turn). */
export interface WarmTools {
  /** A token (and its server) for a new process of `sessionKey`: refused until a turn binds it. */
  open(sessionKey: string): ProcessTools;
  /** Binds the process's token to this run for one turn (interactive while bound). */
  bind(process: ProcessTools): ToolBinding;
}

/** What a spec adds to one run for the tools: flags, environment, and files written before it starts. */
export interface ToolWiring {
  args: string[];
  env?: Record<string, string>;
  /** Written with mode 0600 before the run (at paths from `runFile`), removed after it. */
  files?: { path: string; content: string }[];
}

/**
 * One permission question from a warm agent mid-turn (approvals from the phone), put in
 * words a phone can show. Built by the driver from its protocol's request; everything in it is
 * text the agent chose, so untrusted.
 */
export interface ApprovalQuestion {
  /**
   * The kind of tool, stable across calls of the same tool: what "allow for this chat" remembers.
   * For example `shell`, `edit`, `fetch`, `mcp:<server>/<tool>`, or the CLI's own tool name.
   */
  toolKind: string;
  /** One short line saying what the agent wants to do, e.g. `run: rm -rf build/`. */
  summary: string;
}

/** The answer to an ApprovalQuestion. The driver answers its CLI "once" for both allows: the relay remembers `allow_chat`. */
export type ApprovalAnswer =
  | { type: 'allow_once' }
  | { type: 'allow_chat' }
  /** `reason` is told to the agent: "denied from the phone", "no answer in 10 minutes", "the relay restarted". */
  | { type: 'deny'; reason: string };

/**
 * Asks the chat's approvers and resolves with their answer (or a deny on timeout, restart or
 * abort). Never rejects. `signal` aborts when the turn is cancelled.
 */
export type Approver = (question: ApprovalQuestion, signal: AbortSignal) => Promise<ApprovalAnswer>;

/**
 * How a warm process's permission questions are answered (`agent.permissions`): `ask` sends each
 * to the chat through the Approver, `allow` and `deny` answer it alone. Cold runs never ask.
 */
export type PermissionPolicy = 'ask' | 'allow' | 'deny';

export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
}

export type AgentErrorKind =
  | 'not_installed'
  | 'auth'
  | 'rate_limit'
  | 'overloaded'
  | 'timeout'
  | 'aborted'
  | 'session_not_found'
  | 'exit'
  /** The CLI's sandbox could not be made (bwrap missing or refused): never run without it. */
  | 'sandbox'
  | 'unparseable';

export type AgentResult =
  | {
      type: 'ok';
      text: string;
      /** Earlier assistant messages of this run, in order. */
      progress: string[];
      /** Raw `MEDIA:` references from all assistant messages, in order, without duplicates. */
      media: string[];
      sessionId?: string;
      usage?: Usage;
      /** True when output was cut at the byte cap. */
      truncated: boolean;
      output?: OutputSize;
      durationMs: number;
    }
  | {
      type: 'error';
      kind: AgentErrorKind;
      /** Short and true, fit to show the user: never CLI output, paths or stack traces. */
      message: string;
      /** The CLI's own first error line, cut short with secrets masked: for logs and `agent run`. */
      detail?: string;
      sessionId?: string;
      exitCode?: number | null;
      signal?: string | null;
      output?: OutputSize;
      durationMs: number;
    };

/** How much the CLI printed on stdout and whether the byte cap cut it (set by the runner, for logs). */
export interface OutputSize {
  bytes: number;
  truncated: boolean;
}

/** What a finished process looked like, handed to `parse`. */
export interface RunOutput {
  stdoutLines: string[];
  stderr: string;
  exitCode: number | null;
  signal: string | null;
  truncated: boolean;
}

export type StreamEvent = { type: 'message'; text: string } | { type: 'continued' };

/**
 * A line a CLI prints while it retries, read for what it says about how the run will end: `auth`
 * (its key was refused: retrying cannot help) or `offline` (it cannot reach its provider). `stop`
 * says the CLI will not get past it by itself, so the runner ends the run now instead of at its
 * time limit; either way the runner asks the CLI whether it is signed in (AgentSpec.signIn).
 */
export interface Trouble {
  kind: 'auth' | 'offline';
  stop: boolean;
  /** The CLI's own words, for `detail` (masked and cut short before it is kept). */
  detail: string;
}

/** How to ask a CLI whether it is signed in on this machine, and what to tell the owner if not. */
export interface SignInCheck {
  /** Arguments after the configured command (`login status`). */
  args: readonly string[];
  /** Matches the check's output (stdout and stderr) when it is not signed in. */
  signedOut: RegExp;
  /** The command the owner runs to sign in (`codex login`). */
  login: string;
}

export interface AgentSpec {
  /** The name config, store and chat commands use: lower-case letters, digits and `-`. */
  kind: AgentKind;
  /** How a person names it, in error messages and `doctor` ("Claude Code"). */
  displayName: string;
  /** No one-shot mode: the agent only runs warm (an ACP agent); `build` refuses. */
  warmOnly?: true;
  /** Default program name looked up on PATH. */
  program: string;
  /** How to get the CLI, for `doctor`'s fix text. */
  install: {
    /** The npm package that installs it, when there is one. */
    npm?: string;
    /** The command (or instruction) a person runs to install it. */
    hint: string;
  };
  /** Arguments that make the program print its version and exit (`doctor`'s dry probe). */
  versionArgs: readonly string[];
  /** The CLI's own documentation, for `docs/agents.md` and fix texts. */
  docsUrl: string;
  /**
   * Where the session goes on the command line, as data `build` reads: the flag that starts a new
   * session under an id (or file) the relay chose, and the flag that resumes one. A flag is absent
   * when the CLI has none (codex resumes with a subcommand and a positional id; see its build).
   */
  session: {
    newFlag?: string;
    resumeFlag?: string;
  };
  /**
   * Environment variables the CLI sets for the processes it starts. Any agent run from inside
   * another would take them as a sign it is nested and act differently, so the runner removes every
   * registered CLI's from every child's environment.
   */
  nestedEnv: readonly string[];
  /** In text mode (`agent parse --format text`): the stderr line that carries the session id. */
  textSessionId?: RegExp;
  /** Whether the relay may choose a new session's id up front (else the id comes from output). */
  choosesSessionId: 'relay-uuid' | 'relay-file' | 'cli';
  /** Environment variable names passed through from the relay's environment when set. */
  passEnv: readonly string[];
  /**
   * The environment that moves the CLI's own config, credentials and sessions into `dir`
   * (`cliHome: 'agent' | 'chat'`, docs/access.md); absent: the CLI has no such variable.
   */
  homeEnv?: (dir: string) => Record<string, string>;
  /**
   * Where the CLI keeps its own state (sessions, settings, its login), from the run's environment
   * and HOME: what the bwrap sandbox binds read-write (agents/sandbox-state.ts). Absent: nothing.
   */
  state?: (env: Readonly<Record<string, string | undefined>>, home: string) => CliState;
  /** Thinking levels the CLI understands; empty when it has none. */
  thinkingLevels: readonly string[];
  /**
   * True when the relay can tell, before a resume, that a stored session no longer exists. For a
   * CLI that does not report a missing session itself (pi starts a new file without a word), this
   * is the only way the chat learns that its context was reset.
   */
  sessionGone?(id: string): boolean;
  build(ctx: BuildContext): Invocation;
  /**
   * How this CLI is given agentwire's MCP server for one run (docs/tools.md): flags, environment
   * and per-run files, each at `runFile(name)` (a path of ours, private to this run or process).
   * Absent: the CLI cannot take it (pi has no MCP).
   */
  tools?(server: ToolServer, runFile: (name: string) => string): ToolWiring;
  /**
   * A fresh per-run reducer over stdout lines. It returns each assistant message (raw text, MEDIA
   * lines included) as soon as it is complete, and `continued` when the agent visibly carries on
   * (a tool call, a new step), which proves the message before it was not the final reply. The
   * runner streams `progress` from it while the run goes on; `parse` reads the same messages.
   */
  messageStream(): (line: string) => StreamEvent[];
  /**
   * A fresh per-run mapping of stdout lines onto what the agent is doing (tools, text, thinking),
   * read only when someone listens (`onEvent`). Absent: the CLI's output shows no tool calls.
   */
  progressStream?(): (line: string) => ProgressStep[];
  /**
   * Reads a line of stdout or stderr for trouble the CLI would otherwise retry until the run's time
   * limit (codex says it in its JSON events, opencode in its log lines on stderr).
   */
  trouble?(line: string): Trouble | undefined;
  /** Asked once a run shows trouble, so "not signed in" is said as such. */
  signIn?: SignInCheck;
  /**
   * Which stdout lines `parse` needs kept. Streaming deltas that repeat the whole message so far
   * (pi) would otherwise fill the byte cap quadratically; they are still streamed to messageStream.
   */
  keepLine?(line: string): boolean;
  parse(
    out: RunOutput,
  ):
    | Omit<Extract<AgentResult, { type: 'ok' }>, 'durationMs'>
    | Omit<Extract<AgentResult, { type: 'error' }>, 'durationMs'>;
}

/** Everything `runCommandReply(spec, request)` needs for one run. */
export interface AgentRequest extends BuildContext {
  /** Wall-clock limit; the whole process group is killed (TERM, then KILL) past it. */
  timeoutMs: number;
  /** Explicit base environment (PATH, HOME, LANG… plus config `env`); nothing else is inherited. */
  env: Record<string, string>;
  /** Aborting kills the run (used by /stop, interrupt and shutdown); the result is an `aborted` error. */
  signal?: AbortSignal;
  /** Called with each assistant message before the final one, as it streams. */
  onProgress?: (text: string) => void;
  /** What the agent is doing as it works (tools, text, thinking, questions), masked and cut. */
  onEvent?: ProgressListener;
  /** agentwire's MCP server for this run, when the tools are on (the spec's `tools` wires it). */
  tools?: ToolServer;
  /** The same tools for a warm process (src/drivers/pool.ts); set with `tools`. */
  warmTools?: WarmTools;
  /** Asks the chat's approvers (permissions `ask`, warm runs only); absent: the policy answers alone. */
  approve?: Approver;
  /**
   * How long this run has waited for a person so far (approvals, `ask_user`), growing while a wait
   * is open. A warm turn's timeout does not count it (drivers/turn-timer.ts).
   */
  personWaitMs?: () => number;
  /** The configured policy for the warm process's permission questions; absent: `deny`. */
  permissions?: PermissionPolicy;
  /** The agent's sandbox (`agent.sandbox: bwrap`): every process of the run starts inside it. */
  sandbox?: Sandbox;
  /** Byte caps for stdout and stderr; defaults live in the runner. */
  maxStdoutBytes?: number;
  maxStderrBytes?: number;
}
