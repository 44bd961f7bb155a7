// The store contract (test/store/contract-suite.ts) over the PostgreSQL engine: each test a database
// of its own in the run's throwaway cluster (npm run test:postgres).
import { openPostgresStore } from '../../src/store/postgres/store.js';
import { storeContract } from '../store/contract-suite.js';
import { freshDatabase } from '../support/postgres-db.js';

storeContract('postgres', async () => openPostgresStore(await freshDatabase()));
