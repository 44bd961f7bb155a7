import { defineCliSuite } from './suite.js';

defineCliSuite('claude', {
  hangTimeoutMs: 5000,
  model: { flag: 'claude-sonnet-4-5', inRequest: 'claude-sonnet-4-5' },
  thinking: 'low',
  readTool: (file) => ({ name: 'Read', input: { file_path: file } }),
  systemText: true,
});
