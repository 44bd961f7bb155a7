import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, portsFrom } from './free-port.js';

const ephemeralStart = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});
async function hold(port: number): Promise<void> {
  const s = createServer();
  servers.push(s);
  await new Promise<void>((r) => s.listen(port, '127.0.0.1', r));
}

describe('freePort', () => {
  it('gives ports below the ephemeral range, distinct, and each one bindable', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(20);
    for (const p of ports) expect(p).toBeLessThan(ephemeralStart);
    await hold(ports[0] as number);
  });

  it('never gives a port somebody holds, and says so when every port is held', async () => {
    const held = await freePort();
    await hold(held);
    const two = portsFrom(held, 2);
    for (let i = 0; i < 4; i++) expect(await two()).toBe(held + 1);
    await expect(portsFrom(held, 1)()).rejects.toThrow(`no free port in ${held}..${held}`);
  });
});
