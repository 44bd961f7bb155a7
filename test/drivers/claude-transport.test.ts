// The claude transport fed bytes directly: records split on LF only, across chunks, and the faults.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { claudeTransport, type Json } from '../../src/drivers/claude-transport.js';
import type { DriverFault } from '../../src/drivers/types.js';

function setup(max?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const got = {
    messages: [] as Json[],
    responses: [] as [string, Json][],
    faults: [] as DriverFault[],
    ended: 0,
  };
  const t = claudeTransport(
    input,
    output,
    {
      onMessage: (m) => got.messages.push(m),
      onResponse: (id, r) => got.responses.push([id, r]),
      onFault: (f) => got.faults.push(f),
      onEnd: () => got.ended++,
    },
    max,
  );
  const written: string[] = [];
  output.setEncoding('utf8');
  output.on('data', (c: string) => written.push(c));
  return { input, t, got, written };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('claudeTransport', () => {
  it('joins a record split across chunks and keeps U+2028 inside it', async () => {
    const { input, got } = setup();
    input.write('{"type":"assistant","text":"a\u2028');
    input.write('b"}\n{"type":"result"}\n');
    await tick();
    expect(got.messages).toEqual([{ type: 'assistant', text: 'a\u2028b' }, { type: 'result' }]);
  });

  it('delivers a last record without LF at the end of output, then says it ended', async () => {
    const { input, got } = setup();
    input.end('{"type":"result"}');
    await new Promise((r) => input.once('close', r));
    expect(got.messages).toEqual([{ type: 'result' }]);
    expect(got.ended).toBe(1);
  });

  it('writes a request as a control_request line and takes its answer once', async () => {
    const { input, t, got, written } = setup();
    t.request('aw-1', { subtype: 'interrupt' });
    await tick();
    expect(JSON.parse(written.join(''))).toEqual({
      type: 'control_request',
      request_id: 'aw-1',
      request: { subtype: 'interrupt' },
    });
    input.write('{"type":"control_response","response":{"subtype":"success","request_id":"aw-1"}}\n');
    input.write('{"type":"control_response","response":{"subtype":"success","request_id":"aw-1"}}\n');
    input.write('{"type":"result"}\n');
    await tick();
    expect(got.responses).toEqual([['aw-1', { subtype: 'success', request_id: 'aw-1' }]]);
    expect(got.faults).toEqual([{ type: 'duplicate_response', id: 'aw-1' }]);
    // Nothing after a fault is delivered: the process is no longer trusted.
    expect(got.messages).toEqual([]);
  });

  it.each<[string, string, DriverFault]>([
    ['a line that is not JSON', 'hello there\n', { type: 'garbage', detail: 'a line that is not JSON' }],
    ['a JSON array', '[1,2]\n', { type: 'garbage', detail: 'a JSON value that is not a message' }],
    [
      'a response without an id',
      '{"type":"control_response","response":{}}\n',
      { type: 'garbage', detail: 'a control_response without a request_id' },
    ],
    [
      'a response to a request never sent',
      '{"type":"control_response","response":{"request_id":"x"}}\n',
      { type: 'unknown_response', id: 'x' },
    ],
  ])('%s is a fault', async (_name, bytes, fault) => {
    const { input, got } = setup();
    input.write(bytes);
    await tick();
    expect(got.faults).toEqual([fault]);
  });

  it('a record over the cap is a fault without waiting for its end', async () => {
    const { input, got } = setup(1024);
    input.write(`{"type":"assistant","pad":"${'x'.repeat(2000)}`);
    await tick();
    expect(got.faults).toEqual([{ type: 'too_large', bytes: expect.any(Number) }]);
  });

  it('a whole record over the cap in one chunk is a fault too, and is not delivered', async () => {
    const { input, got } = setup(1024);
    input.write(`${JSON.stringify({ type: 'assistant', pad: 'x'.repeat(2000) })}\n`);
    await tick();
    expect(got.faults).toEqual([{ type: 'too_large', bytes: 2029 }]);
    expect(got.messages).toEqual([]);
  });
});
