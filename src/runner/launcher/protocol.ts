// The messages between the relay and its launcher process (launcher-process.ts), over the private
// IPC pipe made by fork() with `serialization: 'advanced'` (structured clone: bytes cross as bytes,
// never re-encoded as text). Types only: the launcher imports nothing but node's own modules, so it
// stays small. Messages on one channel arrive in the order sent, so a stream's last chunk always
// comes before its `*_end`.

/** The relay asks. `id` is the relay's number for one launch, unique for the launcher's life. */
export type ToLauncher =
  | {
      type: 'spawn';
      id: number;
      file: string;
      args: string[];
      cwd?: string;
      /** The child's whole environment (a run's tool token too): it crosses only this pipe. */
      env: Record<string, string>;
      /** A piped stdin; without it stdin is ignored, never an open pipe. */
      stdin: boolean;
      /** The run's mark (run-mark.ts): what left the group is found by it when the relay goes. */
      mark?: string;
      /**
       * A fourth pipe, the child's fd 3, read like stdout (`fd3`, `fd3_end`): a sandboxed warm
       * start says on it that bwrap made the sandbox (core/sandbox.ts, spawn-stdio.ts).
       */
      fd3?: boolean;
    }
  | { type: 'stdin'; id: number; data: Uint8Array }
  | { type: 'stdin_end'; id: number }
  /** The relay stops waiting for pipes a grandchild holds open: close them (their ends follow). */
  | { type: 'release'; id: number };

/** The launcher tells. */
export type FromLauncher =
  | { type: 'ready'; pid: number }
  | { type: 'spawned'; id: number; pid: number }
  /** Nothing started: `code` is the errno name (ENOENT, EACCES) when there is one. */
  | { type: 'failed'; id: number; code?: string; message: string }
  | { type: 'stdout'; id: number; data: Uint8Array }
  | { type: 'stderr'; id: number; data: Uint8Array }
  | { type: 'stdout_end'; id: number }
  | { type: 'stderr_end'; id: number }
  | { type: 'fd3'; id: number; data: Uint8Array }
  | { type: 'fd3_end'; id: number }
  | { type: 'exit'; id: number; code: number | null; signal: string | null };
