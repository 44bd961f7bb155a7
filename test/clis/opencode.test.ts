import { defineCliSuite } from './suite.js';

defineCliSuite('opencode', {
  hangTimeoutMs: 10000,
  model: { flag: 'fake/fake-model', inRequest: 'fake-model' },
  readTool: (file) => ({ name: 'read', input: { filePath: file } }),
  systemText: false,
});
