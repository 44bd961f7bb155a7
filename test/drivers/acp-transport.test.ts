// The stream under the ACP library, fed bytes by hand: what it delivers, and what it calls a fault.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { harmlessMisfit, monitoredStream } from '../../src/drivers/acp-transport.js';
import type { DriverFault } from '../../src/drivers/types.js';

async function feed(chunks: (string | Buffer)[], sent: object[] = [], max?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const faults: DriverFault[] = [];
  const written: string[] = [];
  output.on('data', (d: Buffer) => written.push(d.toString()));
  const { stream, outstanding } = monitoredStream(input, output, (f) => faults.push(f), max);
  const writer = stream.writable.getWriter();
  for (const m of sent) await writer.write(m as never);
  for (const c of chunks) input.write(c);
  input.end();
  const got: unknown[] = [];
  const reader = stream.readable.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    got.push(value);
  }
  return { got, faults, written, outstanding: outstanding() };
}

const req = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'session/prompt', params: {} });
const res = (id: number | string) => `${JSON.stringify({ jsonrpc: '2.0', id, result: {} })}\n`;

describe('monitoredStream', () => {
  it('delivers messages split across chunks, CRLF and U+2028 inside strings included', async () => {
    const line = JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { t: 'a\u2028b' } });
    const r = await feed([line.slice(0, 10), `${line.slice(10)}\r\n`, '\n', `${line}`]);
    expect(r.faults).toEqual([]);
    expect(r.got).toHaveLength(2);
    expect(r.got[0]).toMatchObject({ params: { t: 'a\u2028b' } });
  });

  it('matches responses to the requests it wrote, and writes NDJSON', async () => {
    const r = await feed([res(1), res('x')], [req(1), req('x')]);
    expect(r.faults).toEqual([]);
    expect(r.got).toHaveLength(2);
    expect(r.outstanding).toBe(0);
    expect(r.written.join('')).toBe(`${JSON.stringify(req(1))}\n${JSON.stringify(req('x'))}\n`);
  });

  it.each<[string, (string | Buffer)[], object[], DriverFault['type']]>([
    ['a line that is not JSON', ['hello world\n'], [], 'garbage'],
    ['a JSON array (a batch)', ['[1,2]\n'], [], 'garbage'],
    ['a bare JSON value', ['42\n'], [], 'garbage'],
    ['a response to a request never sent', [res(7)], [req(1)], 'unknown_response'],
    ['a response whose id differs only in type', [res('1')], [req(1)], 'unknown_response'],
    ['a second response to one request', [res(1), res(1)], [req(1)], 'duplicate_response'],
  ])('%s is a fault, and nothing after it is delivered', async (_name, chunks, sent, type) => {
    const after = `${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: {} })}\n`;
    const r = await feed([...chunks, after], sent);
    expect(r.faults.map((f) => f.type)).toEqual([type]);
    expect(r.got.some((m) => (m as { method?: string }).method === 'session/update')).toBe(false);
  });

  it('a message over the cap is a fault before it is all buffered', async () => {
    const r = await feed(['{"jsonrpc":"2.0","method":"x","params":"', 'a'.repeat(200)], [], 100);
    expect(r.faults.map((f) => f.type)).toEqual(['too_large']);
  });

  it('a whole message over the cap in one chunk is a fault too, and is not delivered', async () => {
    const r = await feed(
      [`${JSON.stringify({ jsonrpc: '2.0', method: 'x', params: 'a'.repeat(200) })}\n`],
      [],
      100,
    );
    expect(r.faults.map((f) => f.type)).toEqual(['too_large']);
    expect(r.got).toEqual([]);
  });
});

describe('monitoredStream after the reader is gone', () => {
  it('drops what still arrives once the library cancelled its reader (no throw in the data handler)', async () => {
    const input = new PassThrough();
    const { stream } = monitoredStream(input, new PassThrough(), () => {});
    const reader = stream.readable.getReader();
    await reader.cancel(new Error('closed'));
    const errors: unknown[] = [];
    const onError = (e: unknown) => errors.push(e);
    process.on('uncaughtException', onError);
    try {
      input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: {} })}\n`);
      input.end();
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(errors).toEqual([]);
  });
});

describe('harmlessMisfit', () => {
  const update = (u: object, extra: object = {}) => ({
    jsonrpc: '2.0',
    method: 'session/update',
    params: { sessionId: 's', update: u },
    ...extra,
  });
  it.each([
    [
      'used null (claude-agent-acp)',
      update({ sessionUpdate: 'usage_update', used: null, size: 200000 }),
      true,
    ],
    ['size missing', update({ sessionUpdate: 'usage_update', used: 5 }), true],
    ['negative used', update({ sessionUpdate: 'usage_update', used: -1, size: 10 }), true],
    ['a usage_update that fits', update({ sessionUpdate: 'usage_update', used: 5, size: 10 }), false],
    ['another update with a null', update({ sessionUpdate: 'agent_message_chunk', used: null }), false],
    [
      'a request, not a notification',
      update({ sessionUpdate: 'usage_update', used: null }, { id: 1 }),
      false,
    ],
    ['another method', { jsonrpc: '2.0', method: 'session/other', params: {} }, false],
  ])('%s', (_name, msg, dropped) => {
    expect(harmlessMisfit(msg as Record<string, unknown>) !== undefined).toBe(dropped);
  });

  it('is dropped before the library sees it, and reported', async () => {
    const input = new PassThrough();
    const dropped: string[] = [];
    const { stream } = monitoredStream(
      input,
      new PassThrough(),
      () => undefined,
      undefined,
      undefined,
      (w) => dropped.push(w),
    );
    const bad = update({ sessionUpdate: 'usage_update', used: null, size: 1 });
    const good = update({ sessionUpdate: 'usage_update', used: 1, size: 1 });
    input.end(`${JSON.stringify(bad)}\n${JSON.stringify(good)}\n`);
    const reader = stream.readable.getReader();
    const got: unknown[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(r.value);
    expect(got).toEqual([good]);
    expect(dropped).toEqual(['a usage_update without its numbers']);
  });
});
