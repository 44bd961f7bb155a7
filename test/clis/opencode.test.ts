import { defineCliSuite } from './suite.js';

defineCliSuite('opencode', {
  hangTimeoutMs: 10000,
  model: { flag: 'fake/fake-model', inRequest: 'fake-model' },
  systemText: false,
});
