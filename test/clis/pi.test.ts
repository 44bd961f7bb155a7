import { defineCliSuite } from './suite.js';

defineCliSuite('pi', {
  hangTimeoutMs: 5000,
  model: { flag: 'fake/fake-model', inRequest: 'fake-model' },
  thinking: 'low',
  readTool: (file) => ({ name: 'read', input: { path: file } }),
  systemText: true,
});
