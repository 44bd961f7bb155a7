import { defineCliSuite } from './suite.js';

defineCliSuite('codex', { hangTimeoutMs: 5000 });
