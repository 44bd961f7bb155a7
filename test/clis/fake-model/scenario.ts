// What the fake model does for one scenario. A test PUTs a scenario under an id and gives the CLI
// the base URL `/s/<id>`, so one server serves every test of the suite at once.
import { z } from 'zod';

/** A tool call the model makes, as the tests write it: `{"name": "Bash", "input": {...}}`. */
export const toolCallSchema = z
  .object({ name: z.string().min(1), input: z.record(z.string(), z.unknown()) })
  .strict();
export type ToolCall = z.infer<typeof toolCallSchema>;

export const scenarioSchema = z
  .object({
    /**
     * `ok`: answer `reply`. `tool`: first call `tool`, then answer `reply` once the request carries
     * the tool's result. `hang`: accept and never answer. `error`: answer HTTP `status` with the
     * API's own error body.
     */
    mode: z.enum(['ok', 'tool', 'hang', 'error']).default('ok'),
    reply: z.string().default('Done.'),
    tool: toolCallSchema.optional(),
    status: z.number().int().min(400).max(599).default(500),
  })
  .strict()
  .refine((s) => s.mode !== 'tool' || s.tool !== undefined, { message: 'mode "tool" needs a tool' });
export type Scenario = z.infer<typeof scenarioSchema>;

/** The API a request was made to; each has its own wire format. */
export type Api = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';

/** What one model request gets back, decided before any API formats it. */
export type Answer =
  | { type: 'text'; text: string }
  | { type: 'tool'; call: ToolCall }
  | { type: 'error'; status: number }
  | { type: 'hang' };

/** Pure: the scenario and whether the tool's result came back decide the answer. */
export function answerFor(sc: Scenario, toolResultSeen: boolean): Answer {
  switch (sc.mode) {
    case 'ok':
      return { type: 'text', text: sc.reply };
    case 'tool':
      return !toolResultSeen && sc.tool ? { type: 'tool', call: sc.tool } : { type: 'text', text: sc.reply };
    case 'hang':
      return { type: 'hang' };
    case 'error':
      return { type: 'error', status: sc.status };
  }
}
