// The other half of "adding a CLI is one spec file and one registry line": no code outside the
// spec files names a CLI. Comments may (they explain); string literals, template text, regular
// expressions and identifiers may not, except in the few files listed below, each for a reason.
// The kind names come from the registry, so a sixth CLI is covered the moment it is registered.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AGENT_KINDS, AGENT_SPECS } from '../../src/agents/registry.js';
import { AGENT_KIND_NAME, DEFAULT_AGENT_KIND } from '../../src/config/schema-refine.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** Each spec file knows its own CLI: that is the point. */
const SPEC_FILES = new Set(AGENT_KINDS.map((k) => `src/agents/${k}.ts`));

/**
 * Files outside the spec files that may name a CLI, and why. A folder ends with `/`. The test also
 * fails when a listed file no longer names one, so the list only shrinks.
 */
const ALLOWED: Record<string, string> = {
  // Its job: one import and one SPECS entry per CLI.
  'src/agents/registry.ts': 'the registry line of each CLI',
  // The product's default CLI when the config names none (DEFAULT_AGENT_KIND); config sits below the
  // agents layer, so it cannot ask the registry. A test below checks that the kind is registered.
  'src/config/schema-refine.ts': 'the default agent.kind',
  // The warm drivers (docs/warm-agents.md) speak each CLI's own live protocol (claude's
  // stream-json control, codex app-server and its generated protocol types, pi's RPC): per-CLI code
  // like a spec. A CLI without a driver runs cold, so a new CLI needs none.
  'src/drivers/': 'the warm drivers, one per CLI protocol',
  // `acp` is not a CLI but a protocol: any agent that speaks it, given its argv. Its config checks
  // (a command is required; there is no cold mode) name the kind and the keys to fix.
  'src/config/schema-warm.ts': "the ACP agent's config checks",
  'src/config/schema.ts': 'calls the ACP checks',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

const KIND_WORD = new RegExp(
  `(?<![A-Za-z0-9])(${AGENT_KINDS.map((k) => k.replace(/[-]/g, '\\-')).join('|')})(?![a-z0-9])`,
  'i',
);

/** camelCase and snake_case words of an identifier, lower-cased: `piSpec` → pi, spec. */
function identifierWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_$]+/)
    .map((w) => w.toLowerCase());
}

/** Where a file's code (not its comments) names a CLI kind: `line: text`. */
function kindMentions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const kinds = new Set(AGENT_KINDS.map((k) => k.toLowerCase()));
  const hits: string[] = [];
  const at = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isRegularExpressionLiteral(node)
    ) {
      if (KIND_WORD.test(node.text)) hits.push(`${at(node)}: ${node.getText(source).slice(0, 80)}`);
    } else if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      if (identifierWords(node.text).some((w) => kinds.has(w))) hits.push(`${at(node)}: ${node.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return hits;
}

const allowed = (rel: string) =>
  Object.keys(ALLOWED).find((a) => (a.endsWith('/') ? rel.startsWith(a) : rel === a));

describe('CLI kind names outside src/agents/<kind>.ts', () => {
  const files = sourceFiles(SRC).map((f) => ({ rel: relative(ROOT, f), text: readFileSync(f, 'utf8') }));

  it('appear nowhere but the spec files and the listed exceptions', () => {
    const found = files
      .filter((f) => !SPEC_FILES.has(f.rel) && !allowed(f.rel))
      .flatMap((f) => kindMentions(f.rel, f.text).map((h) => `${f.rel}:${h}`));
    expect(found).toEqual([]);
  });

  it('each listed exception still needs its place on the list', () => {
    const stale = Object.keys(ALLOWED).filter(
      (a) => !files.some((f) => allowed(f.rel) === a && kindMentions(f.rel, f.text).length > 0),
    );
    expect(stale).toEqual([]);
  });

  it('the scanner finds names in strings, templates, regexes and identifiers, not in comments', () => {
    const k = AGENT_KINDS[1] as string;
    const code = [
      `// ${k} in a comment`,
      `/* ${k} */ const a = 1;`,
      `const b = '${k}';`,
      `const c = \`x \${a} ${k.toUpperCase()}_HOME\`;`,
      `const d = /${k}/;`,
      `const ${k}Thing = 2;`,
      `const api = 'rapid';`,
    ].join('\n');
    expect(kindMentions('x.ts', code).map((h) => h.split(':')[0])).toEqual(['3', '4', '5', '6']);
  });
});

describe('the registry', () => {
  it('holds specs whose kinds are unique, config-shaped and their own key', () => {
    expect(new Set(AGENT_KINDS).size).toBe(AGENT_KINDS.length);
    for (const kind of AGENT_KINDS) {
      expect(kind).toMatch(AGENT_KIND_NAME);
      expect(AGENT_SPECS[kind]?.kind).toBe(kind);
    }
  });

  it("registers the config's default kind", () => {
    expect(AGENT_KINDS).toContain(DEFAULT_AGENT_KIND);
  });

  it('gives every spec the data the rest of the relay reads', () => {
    for (const kind of AGENT_KINDS) {
      const s = AGENT_SPECS[kind]!;
      expect(s.displayName.trim()).not.toBe('');
      expect(s.install.hint.trim()).not.toBe('');
      // A warm-only agent (ACP) has no common version flag; doctor checks that its program exists.
      if (!s.warmOnly) expect(s.versionArgs.length).toBeGreaterThan(0);
      expect(s.docsUrl).toMatch(/^https:\/\//);
      for (const flag of [s.session.newFlag, s.session.resumeFlag])
        if (flag !== undefined) expect(flag).toMatch(/^--?[a-z]/);
    }
  });
});
