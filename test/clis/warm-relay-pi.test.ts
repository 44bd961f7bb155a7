import { defineWarmRelaySuite } from './warm-relay.js';

defineWarmRelaySuite('pi');
