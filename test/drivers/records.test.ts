// The record checks every warm transport shares, as tables: what a framed line is, and what an
// answer to a request id is.
import { describe, expect, it } from 'vitest';
import { garbage, Pending, readMessage, recordOf } from '../../src/drivers/records.js';
import type { DriverFault } from '../../src/drivers/types.js';

describe('recordOf', () => {
  it.each<[string, string, object]>([
    ['an object', '{"type":"x"}', { type: 'message', msg: { type: 'x' }, text: '{"type":"x"}' }],
    ['white space around an object', ' \t{"a":1}\r ', { type: 'message', msg: { a: 1 }, text: '{"a":1}' }],
    ['a blank line', '   ', { type: 'blank' }],
    ['not JSON', 'hello', { type: 'not_json', text: 'hello' }],
    ['half a JSON line', '{"a":', { type: 'not_json', text: '{"a":' }],
    ['an array (a batch)', '[1,2]', { type: 'not_object', value: [1, 2] }],
    ['a bare number', '42', { type: 'not_object', value: 42 }],
    ['null', 'null', { type: 'not_object', value: null }],
  ])('%s', (_name, line, want) => {
    expect(recordOf(line)).toEqual(want);
  });

  it('names the fault for each kind of garbage', () => {
    expect(garbage('not_json')).toEqual({ type: 'garbage', detail: 'a line that is not JSON' });
    expect(garbage('not_object', 'a pi record')).toEqual({
      type: 'garbage',
      detail: 'a JSON value that is not a pi record',
    });
  });
});

describe('readMessage', () => {
  it.each<[string, string, unknown[], DriverFault[]]>([
    ['a message, seen by the tap', '{"a":1}', [{ a: 1 }], []],
    ['a blank line: nothing', '  ', [], []],
    ['not JSON: its text to the tap, a fault', 'oops', ['oops'], [garbage('not_json')]],
    ['a bare value: a fault, nothing to the tap', '7', [], [garbage('not_object')]],
  ])('%s', (_name, line, tapped, faults) => {
    const seen: unknown[] = [];
    const got: DriverFault[] = [];
    const r = readMessage(
      line,
      (f) => got.push(f),
      (_d, m) => seen.push(m),
    );
    expect(r?.msg).toEqual(tapped.length && !faults.length ? tapped[0] : undefined);
    expect(seen).toEqual(tapped);
    expect(got).toEqual(faults);
  });
});

describe('Pending', () => {
  it('takes one answer per request sent; a second is a duplicate, one to nothing a stranger', () => {
    const p = new Pending();
    p.sent('1');
    p.sent('2');
    expect(p.size()).toBe(2);
    expect(p.answer('1')).toBe('ok');
    expect(p.answer('1', 'one')).toEqual({ type: 'duplicate_response', id: 'one' });
    expect(p.answer('9')).toEqual({ type: 'unknown_response', id: '9' });
    expect(p.size()).toBe(1);
  });

  it('remembers the last 256 answered ids; an older one answered again is a stranger', () => {
    const p = new Pending();
    for (let i = 0; i < 257; i++) {
      p.sent(String(i));
      expect(p.answer(String(i))).toBe('ok');
    }
    expect(p.answer('1')).toEqual({ type: 'duplicate_response', id: '1' });
    expect(p.answer('0')).toEqual({ type: 'unknown_response', id: '0' });
  });
});
