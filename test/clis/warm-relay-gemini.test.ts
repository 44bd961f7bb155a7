import { defineWarmRelaySuite } from './warm-relay.js';

defineWarmRelaySuite('gemini');
