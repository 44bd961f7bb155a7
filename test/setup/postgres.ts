// Global set-up of the PostgreSQL suites (vitest.postgres.config.ts): one throwaway cluster for the
// run, its URL handed to the test files (`inject('pgUrl')`), stopped and removed after the last file.
// Each test makes a database of its own in it (test/support/postgres-db.ts).
import type { TestProject } from 'vitest/node';
import { startPostgres } from '../support/postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startPostgres();
  project.provide('pgUrl', cluster.url);
  return () => cluster.stop();
}
