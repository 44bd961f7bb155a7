import { defineCliSuite } from './suite.js';

defineCliSuite('pi', { hangTimeoutMs: 5000 });
