#!/usr/bin/env node
// A sixth CLI for test/agents/sixth-cli.test.ts: `parrot --json [--session-id ID | --resume ID]`
// reads the prompt on stdin and answers in JSON lines. It shows what the relay gave it (argv and
// whether a nested-agent variable got through) so the test can check the spec was used as data.
const args = process.argv.slice(2);
if (args[0] === '--version') {
  process.stdout.write('parrot 1.2.3\n');
  process.exit(0);
}
let prompt = '';
for await (const chunk of process.stdin) prompt += chunk;
const after = (flag) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};
const id = after('--resume') ?? after('--session-id') ?? 'parrot-chose-this';
const line = (o) => process.stdout.write(`${JSON.stringify(o)}\n`);
if (prompt.includes('fail')) {
  process.stderr.write('parrot: rate limit reached\n');
  process.exit(3);
}
line({ type: 'session', id });
line({ type: 'say', text: 'thinking it over' });
line({ type: 'tool' });
line({
  type: 'say',
  text: `parrot heard: ${prompt} (${args.includes('--resume') ? 'resumed' : 'new'}, nested ${process.env.PARROT_NESTED ?? 'unset'})`,
});
