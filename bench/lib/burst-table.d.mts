// Types for burst-table.mjs, for its table test (test/bench/burst-table.test.ts).
export interface BurstRaw {
  kind: string;
  label: string;
  mode: string;
  whileBusy: string;
  senders?: number;
  per?: number;
  runs: number;
  messages?: number;
  agentCpuMs: number;
  wallMs: number;
  starts: number;
  startsSeen?: number;
  peakRssMiB: number;
  load: string;
  ackP50?: number;
  ackP99?: number;
}
export const ONE_AT_A_TIME: string;
export function shapeOf(r: BurstRaw): { senders: number; per: number };
export function isOneAtATime(r: BurstRaw): boolean;
export function isSameShape(r: BurstRaw): boolean;
export function perTurn(r: BurstRaw): number;
export function perMessage(r: BurstRaw): number;
export function turnsPerChat(r: BurstRaw): number;
export function baselinesFor(r: BurstRaw, raws: BurstRaw[]): { one?: BurstRaw; shape?: BurstRaw };
export function compare(
  r: BurstRaw,
  raws: BurstRaw[],
): {
  perTurn: number;
  perMessage: number;
  turnsPerChat: number;
  xOne?: number;
  xShape?: number;
  xShapePerMessage?: number;
};
export function tableOf(text: string): string;
