// A stand-in for WhatsApp's CDN at the network edge only: media URLs stay https://mmg.whatsapp.net/…,
// so the real URL rule and address checks run; DNS answers with a public address, and the connection
// made to that checked address is carried to a real HTTP server on 127.0.0.1 instead.
import http from 'node:http';
import type { DownloadNet } from '../../../src/channels/whatsapp/media-download.js';
import type { PinnedRequest } from '../../../src/media/guarded-get.js';

export const CDN = 'https://mmg.whatsapp.net';
/** A public address (Meta's range) the fake DNS gives for every WhatsApp name. */
export const CDN_ADDRESS = '157.240.1.53';

export interface CdnEdge extends Required<DownloadNet> {
  /** Every connection made: the name in the URL and the address it was pinned to. */
  connects: { host: string; address: string }[];
}

export function cdnEdge(port: () => number, answer: (host: string) => string[] = () => [CDN_ADDRESS]) {
  const connects: CdnEdge['connects'] = [];
  const edge: CdnEdge = {
    connects,
    resolve: async (host) => answer(host),
    transport: (req: PinnedRequest) => {
      connects.push({ host: req.url.hostname, address: req.address });
      return new Promise<http.IncomingMessage>((resolve, reject) => {
        const target = new URL(`${req.url.pathname}${req.url.search}`, `http://127.0.0.1:${port()}`);
        const r = http.request(target, { headers: req.headers, signal: req.signal }, resolve);
        r.once('error', reject);
        r.end();
      });
    },
  };
  return edge;
}
