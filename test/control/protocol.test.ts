import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../src/control/protocol.js';

describe('parseRequest', () => {
  it.each([
    ['{"id":1,"method":"status"}', { ok: true, request: { id: 1, method: 'status', params: undefined } }],
    [
      '{"id":"a","method":"send","params":{"x":1}}',
      { ok: true, request: { id: 'a', method: 'send', params: { x: 1 } } },
    ],
    ['nope', { ok: false, error: 'not JSON' }],
    ['[1,2]', { ok: false, error: 'not a JSON object' }],
    ['null', { ok: false, error: 'not a JSON object' }],
    ['{"method":"status"}', { ok: false, error: 'id must be a number or string' }],
    ['{"id":1}', { ok: false, error: 'method must be a string' }],
    ['{"id":1,"method":""}', { ok: false, error: 'method must be a string' }],
  ])('%s', (line, expected) => {
    expect(parseRequest(line)).toEqual(expected);
  });
});
