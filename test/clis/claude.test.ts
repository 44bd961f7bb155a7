import { defineCliSuite } from './suite.js';

defineCliSuite('claude', { hangTimeoutMs: 5000 });
