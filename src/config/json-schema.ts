// The one JSON-schema validator (ajv), loaded on first use only: importing it costs about 55 ms and
// 15 MB of memory (measured on Node 24), which every command would otherwise pay through the config
// module, though only a config with `tools.scripts` ever needs it. A synchronous require, since the
// config check that first needs it (a zod refinement) cannot wait on an import.
import { createRequire } from 'node:module';
import type { Ajv as AjvType } from 'ajv';

let made: AjvType | undefined;

/** The shared validator: checks schemas (config) and compiles them (a script's arguments). */
export function jsonSchemas(): AjvType {
  if (!made) {
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    made = new Ajv({ strict: false, allErrors: false });
  }
  return made;
}
