// Types for proc-tree.mjs, for the test that drives it (test/bench/proc-tree.test.ts).
export interface TreeSeen {
  peakRssKb: number;
  peakAgents: number;
  rootCpuMs: number;
  firstRootCpuMs: number | undefined;
  starts: number;
  samples: number;
}
export function sampleTree(root: number, mark: string, every?: number): { stop(): TreeSeen };
