// Which IP addresses a MEDIA: URL may point at: public unicast only. Loopback, private, link-local,
// shared (CGNAT), multicast, documentation and reserved ranges are refused, so an agent's output
// can never make agentwire fetch from the host itself or the local network. IPv6 is an allow-list
// (global unicast 2000::/3 minus tunnels and documentation): IPv4-mapped, NAT64 and the like fall
// outside it and are refused whatever IPv4 address they carry.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const V6_BLOCKED_INSIDE_GLOBAL: [string, number, string][] = [
  ['2001::', 32, 'Teredo tunnel'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4 tunnel'],
];

const v4 = V4_BLOCKED.map(([net, prefix, why]) => {
  const b = new BlockList();
  b.addSubnet(net, prefix, 'ipv4');
  return { b, why };
});
const v6Global = new BlockList();
v6Global.addSubnet('2000::', 3, 'ipv6');
const v6 = V6_BLOCKED_INSIDE_GLOBAL.map(([net, prefix, why]) => {
  const b = new BlockList();
  b.addSubnet(net, prefix, 'ipv6');
  return { b, why };
});

/** undefined when the address is public unicast; otherwise why it is not. */
export function nonPublicReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return v4.find(({ b }) => b.check(address, 'ipv4'))?.why;
  if (family === 6) {
    const lower = address.toLowerCase();
    if (!v6Global.check(lower, 'ipv6')) {
      if (lower === '::1') return 'loopback';
      if (/^fe[89ab]/.test(lower)) return 'link-local';
      if (/^f[cd]/.test(lower)) return 'private';
      if (v4.some(({ b }) => b.check(lower, 'ipv6'))) return 'IPv4-mapped private';
      return 'not global unicast';
    }
    return v6.find(({ b }) => b.check(lower, 'ipv6'))?.why;
  }
  return 'not an IP address';
}

/** Host names that always mean this machine, whatever DNS says. */
export function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return (
    h === 'localhost' || h.endsWith('.localhost') || h === 'localhost.localdomain' || h.endsWith('.local')
  );
}

/** DNS lookup: every address a host name resolves to. Injectable wherever it is used, for tests. */
export type Resolver = (host: string) => Promise<string[]>;

export const defaultResolve: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
