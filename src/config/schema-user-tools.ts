// `tools.servers` and `tools.scripts`: the user's own tools, offered to the agent beside agentwire's
// (docs/tools.md, "Your own tools"). Kept apart from schema.ts, as the other sections are. A server
// is either a program spoken to over stdio or a streamable HTTP address, never both: one strict
// object with a check naming the key at fault, since a union's error would not say which.
import { z } from 'zod';
import { jsonSchemas } from './json-schema.js';

/** A server's or script's name: it prefixes its tools' names (`<server>__<tool>`), so no `__` in it. */
const NAME = /^[a-z][a-z0-9-]{0,23}$/;
/** The prefix of a script's tool (`script__<name>`): no server may take it. */
export const SCRIPT_PREFIX = 'script';

const timeoutSeconds = z
  .number()
  .int()
  .positive()
  .max(3600)
  .default(60)
  .describe('One call is given up after this long (the server keeps running; a script is killed).');

const env = z
  .record(z.string(), z.string())
  .optional()
  .describe(
    'Extra environment ("${VAR}" allowed): given to this program only, never to the agent, never logged.',
  );

export const userServerSchema = z
  .object({
    command: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('A stdio MCP server: the program and its arguments (argv, no shell).'),
    env,
    cwd: z.string().min(1).optional().describe("The stdio server's working folder. Default: the relay's."),
    url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe('A streamable HTTP MCP server: its address (http or https).'),
    headers: z
      .record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/, 'a header name'), z.string())
      .optional()
      .describe('HTTP headers sent with every request ("${VAR}" allowed; never logged).'),
    safe: z
      .array(z.string().min(1).max(64))
      .default([])
      .describe(
        "The server's tools (by their own names, without the prefix) that run without asking, whatever agent.permissions says.",
      ),
    timeoutSeconds,
  })
  .strict()
  .superRefine((s, ctx) => {
    const problem = (path: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [path], message });
    if (s.command && s.url) problem('url', 'a server has either command (stdio) or url (HTTP), not both');
    else if (!s.command && !s.url) problem('command', 'a server needs command (stdio) or url (HTTP)');
    if (s.url && s.env) problem('env', 'env is for a stdio server (command); an HTTP server takes headers');
    if (s.url && s.cwd) problem('cwd', 'cwd is for a stdio server (command)');
    if (s.command && s.headers) problem('headers', 'headers are for an HTTP server (url)');
  });

/** Pure: why `schema` cannot describe a tool's arguments, or undefined when it can. */
export function argumentSchemaProblem(schema: Record<string, unknown>): string | undefined {
  if (schema.type !== 'object') return 'must be a JSON schema of an object (type: "object")';
  const checker = jsonSchemas();
  if (!checker.validateSchema(schema))
    return `not a valid JSON schema: ${checker.errorsText(checker.errors)}`;
  return undefined;
}

export const userScriptSchema = z
  .object({
    run: z.array(z.string().min(1)).min(1).describe('The program and its arguments (argv, no shell).'),
    description: z.string().min(1).max(2000).describe('What the agent is told the tool does.'),
    schema: z
      .record(z.string(), z.unknown())
      .default({ type: 'object', properties: {}, additionalProperties: false })
      .describe(
        "The JSON schema of the tool's arguments (an object); they reach the program as JSON on stdin.",
      ),
    env,
    cwd: z.string().min(1).optional().describe("The script's working folder. Default: the relay's."),
    safe: z.boolean().default(false).describe('Runs without asking, whatever agent.permissions says.'),
    timeoutSeconds,
  })
  .strict()
  .superRefine((s, ctx) => {
    const p = argumentSchemaProblem(s.schema);
    if (p) ctx.addIssue({ code: 'custom', path: ['schema'], message: p });
  });

// Checked apart from the record's keys, so the problem names the key (a key schema's own message is
// replaced by zod's "Invalid key in record").
const named = <T extends z.ZodType>(entry: T) =>
  z.record(z.string(), entry).superRefine((rec, ctx) => {
    for (const name of Object.keys(rec))
      if (!NAME.test(name))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'a name is lower-case letters, digits and - (at most 24), starting with a letter',
        });
  });

export const userToolsFields = {
  servers: named(userServerSchema)
    .default({})
    .describe(
      "Your own MCP servers, offered to the agent as <server>__<tool> beside agentwire's tools (docs/tools.md).",
    )
    .refine((s) => !Object.hasOwn(s, SCRIPT_PREFIX), `"${SCRIPT_PREFIX}" is kept for scripts' tools`),
  scripts: named(userScriptSchema)
    .default({})
    .describe(
      'Your own programs, each one tool script__<name>, its arguments JSON on stdin (docs/tools.md).',
    ),
};

export type UserServerConfig = z.infer<typeof userServerSchema>;
export type UserScriptConfig = z.infer<typeof userScriptSchema>;
