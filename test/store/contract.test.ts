// The store contract (test/store/contract-suite.ts) over SQLite and over the deferred wrapper (each
// operation answered a turn later). The SQLite engine's own tests (test/store/*.test.ts besides this
// one) read its tables; test/postgres/contract.test.ts runs the same contract over PostgreSQL.
import { openStore } from '../../src/store/open.js';
import { tempDir } from '../helpers/tmp.js';
import { storeContract } from './contract-suite.js';

for (const engine of ['sqlite', 'deferred'] as const)
  storeContract(engine, () =>
    openStore({ engine: 'sqlite', stateDir: tempDir('aw-contract-'), deferred: engine === 'deferred' }),
  );
