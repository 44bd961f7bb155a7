import { defineCliSuite } from './suite.js';

defineCliSuite('gemini', { hangTimeoutMs: 10000 });
