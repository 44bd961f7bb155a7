// agentwire's tools as an in-process extension, for pi (which has no MCP): pi loads this file,
// built to dist/cli/tool-extension.js beside the entry point (the name src/agents/pi.ts looks for), with `--extension <path>` on a run
// agentwire starts (src/agents/pi.ts), and the model sees send_message, schedule_task and the rest
// under their own names, with the same argument schemas as `agentwire mcp` offers. It runs inside
// pi's process, whose environment carries the run's token and socket (never its argv), and
// forwards each call to the relay exactly as `agentwire mcp` does (tool-call.ts). pi loads
// extensions with jiti, which imports plain ESM: this is our compiled module, importing the rest of
// dist/ (and our zod) by relative path. Named for what it is, not the CLI (kind-literals.test.ts).
import { z } from 'zod';
import { TOOLS, type ToolName } from '../tools/schemas.js';
import { callRelay, callStamp, listUserTools } from './tool-call.js';

/** The part of pi's ExtensionAPI this uses (pi's own types are not a dependency of agentwire). */
export interface ExtensionApi {
  registerTool(tool: {
    name: string;
    label: string;
    description: string;
    parameters: Record<string, unknown>;
    execute(
      toolCallId: string,
      params: unknown,
      signal?: AbortSignal,
    ): Promise<{ content: { type: 'text'; text: string }[]; details: Record<string, never> }>;
  }): void;
}

/**
 * A tool's arguments as plain JSON Schema: pi validates a tool's `parameters` with TypeBox, which
 * takes JSON Schema too, and hands them to the model's provider as they are. `$schema` is dropped,
 * as some providers refuse keys they do not know in a function's parameters.
 */
export function parametersOf(input: z.ZodRawShape): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(z.object(input)) as Record<string, unknown>;
  return schema;
}

/** One tool whose calls go to the relay under `name`. */
function forwarded(
  env: NodeJS.ProcessEnv,
  name: string,
  description: string,
  parameters: Record<string, unknown>,
) {
  return {
    name,
    label: name,
    description,
    parameters,
    async execute(_id: string, params: unknown, signal?: AbortSignal) {
      const a = await callRelay(env, name, params ?? {}, signal, callStamp());
      // pi marks a tool's result as an error (and tells the model so) only when execute throws.
      if (a.isError) throw new Error(a.text);
      return { content: [{ type: 'text' as const, text: a.text }], details: {} };
    },
  };
}

/**
 * The extension's entry (pi calls the default export with its API, and awaits it): each tool,
 * forwarded to the relay; then the user's own tools (tools.servers, tools.scripts) the relay lists,
 * as `agentwire mcp` offers them, never under a name of ours.
 */
export default async function agentwireTools(
  api: ExtensionApi,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  for (const [name, tool] of Object.entries(TOOLS) as [ToolName, (typeof TOOLS)[ToolName]][])
    api.registerTool(forwarded(env, name, tool.description, parametersOf(tool.input)));
  for (const t of await listUserTools(env)) {
    if (Object.hasOwn(TOOLS, t.name)) continue;
    const { $schema: _, ...parameters } = t.inputSchema;
    api.registerTool(forwarded(env, t.name, t.description, parameters));
  }
}
