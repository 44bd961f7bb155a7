import { defineCliSuite } from './suite.js';

defineCliSuite('opencode', { hangTimeoutMs: 10000 });
