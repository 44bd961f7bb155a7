// pi's JSONL transport fed bytes by hand: records split on LF only, responses matched to the
// commands it sent, and what it calls a fault.
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type PiJson, type PiResponse, piTransport } from '../../src/drivers/pi-transport.js';
import type { DriverFault } from '../../src/drivers/types.js';

function wire(max?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const events: PiJson[] = [];
  const faults: DriverFault[] = [];
  const written: string[] = [];
  output.on('data', (d: Buffer) => written.push(d.toString()));
  const rpc = piTransport({
    input,
    output,
    onEvent: (e) => events.push(e),
    onFault: (f) => faults.push(f),
    ...(max ? { maxRecordBytes: max } : {}),
  });
  return { input, rpc, events, faults, written };
}

const res = (id: string, extra: object = {}) =>
  `${JSON.stringify({ id, type: 'response', command: 'prompt', success: true, ...extra })}\n`;
const ev = (text: string) => JSON.stringify({ type: 'message_end', message: { role: 'assistant', text } });

describe('piTransport', () => {
  it('keeps U+2028 / U+2029 inside a record, where readline would cut it', async () => {
    const line = `${ev('one\u2028two\u2029three')}\n`;
    const w = wire();
    w.input.write(line);
    expect(w.faults).toEqual([]);
    expect(w.events).toEqual([
      { type: 'message_end', message: { role: 'assistant', text: 'one\u2028two\u2029three' } },
    ]);
    // Why pi's docs forbid readline: it cuts the same bytes into three "lines", none of them JSON.
    const cut: string[] = [];
    const rl = createInterface({ input: PassThrough.from([line]) });
    for await (const l of rl) cut.push(l);
    expect(cut).toHaveLength(3);
  });

  it('joins records split across chunks (a UTF-8 character cut in two too), strips CR, skips blank lines', () => {
    const w = wire();
    const bytes = Buffer.from(`${ev('é😀')}\r\n\n${ev('b')}\n`);
    const cutAt = bytes.indexOf(Buffer.from('😀')) + 2;
    w.input.write(bytes.subarray(0, cutAt));
    w.input.write(bytes.subarray(cutAt));
    expect(w.faults).toEqual([]);
    expect(w.events.map((e) => (e.message as { text: string }).text)).toEqual(['é😀', 'b']);
  });

  it('a last record without a newline is still read at end of output', async () => {
    const w = wire();
    w.input.end(ev('tail'));
    await new Promise((r) => setImmediate(r));
    expect(w.events).toHaveLength(1);
  });

  it('writes each command as one line with its own id, U+2028 kept raw, and hands back its answer', () => {
    const w = wire();
    const got: PiResponse[] = [];
    w.rpc.send({ type: 'prompt', message: 'a\u2028b' }, (r) => got.push(r));
    w.rpc.send({ type: 'abort' }, (r) => got.push(r));
    expect(w.written).toEqual([
      `{"type":"prompt","message":"a\u2028b","id":"aw-1"}\n`,
      `{"type":"abort","id":"aw-2"}\n`,
    ]);
    expect(w.rpc.outstanding()).toBe(2);
    w.input.write(res('aw-2'));
    w.input.write(res('aw-1', { success: false, error: 'No model' }));
    expect(got).toEqual([
      { success: true, data: undefined },
      { success: false, error: 'No model' },
    ]);
    expect(w.rpc.outstanding()).toBe(0);
    expect(w.faults).toEqual([]);
  });

  it.each<[string, string[], DriverFault['type']]>([
    ['a line that is not JSON', ['hello world\n'], 'garbage'],
    ['a JSON array', ['[1,2]\n'], 'garbage'],
    ['an object without a type', ['{"a":1}\n'], 'garbage'],
    ['a response to a command never sent', [res('aw-9')], 'unknown_response'],
    [
      'a response without an id (pi could not parse our line)',
      [res('x').replace('"id":"x",', '')],
      'unknown_response',
    ],
    ['a second response to one command', [res('aw-1'), res('aw-1')], 'duplicate_response'],
    ['one record over the cap in one chunk', [`${ev('x'.repeat(300))}\n`], 'too_large'],
    [
      'one record over the cap across chunks',
      ['{"type":"message_end","pad":"', 'y'.repeat(300), '"}\n'],
      'too_large',
    ],
  ])('%s is a fault, and nothing after it is delivered', (_name, chunks, type) => {
    const w = wire(256);
    w.rpc.send({ type: 'prompt', message: 'hi' });
    for (const c of chunks) w.input.write(c);
    w.input.write(`${ev('after')}\n`);
    expect(w.faults.map((f) => f.type)).toEqual([type]);
    expect(w.events).toEqual([]);
  });
});
