import { defineWarmRelaySuite } from './warm-relay.js';

defineWarmRelaySuite('opencode');
