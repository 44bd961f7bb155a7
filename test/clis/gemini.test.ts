import { defineCliSuite } from './suite.js';

defineCliSuite('gemini', {
  hangTimeoutMs: 10000,
  model: { flag: 'gemini-2.5-flash', inRequest: 'gemini-2.5-flash' },
  readTool: (file) => ({ name: 'read_file', input: { file_path: file } }),
  systemText: false,
});
