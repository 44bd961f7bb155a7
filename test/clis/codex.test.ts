import { defineCliSuite } from './suite.js';

defineCliSuite('codex', {
  hangTimeoutMs: 5000,
  model: { flag: 'gpt-5.5', inRequest: 'gpt-5.5' },
  thinking: 'low',
  readTool: (file) => ({ name: 'exec_command', input: { cmd: `cat '${file}'` } }),
  systemText: true,
});
