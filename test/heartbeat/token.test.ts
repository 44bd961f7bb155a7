import { describe, expect, it } from 'vitest';
import { decideDelivery, stripHeartbeatToken } from '../../src/heartbeat/token.js';

describe('stripHeartbeatToken', () => {
  it.each([
    ['HEARTBEAT_OK'],
    ['HEARTBEAT_OK.'],
    ['HEARTBEAT_OK!'],
    ['  HEARTBEAT_OK  '],
    ['\n\nHEARTBEAT_OK\n'],
    ['**HEARTBEAT_OK**'],
    ['**HEARTBEAT_OK.**'],
    ['**HEARTBEAT_OK**.'],
    ['*HEARTBEAT_OK*'],
    ['_HEARTBEAT_OK_'],
    ['`HEARTBEAT_OK`'],
    ['~~HEARTBEAT_OK~~'],
    ['heartbeat_ok'],
    ['HEARTBEAT_OK HEARTBEAT_OK'],
    ['HEARTBEAT_OK\n**'],
    ['"HEARTBEAT_OK"'],
    ['“HEARTBEAT_OK.”'],
    ['> HEARTBEAT_OK'],
    ['```\nHEARTBEAT_OK\n```'],
    ['```text\nHEARTBEAT_OK.\n```'],
    ['`HEARTBEAT_OK`.'],
    [''],
    ['   '],
  ])('%j sends nothing', (reply) => {
    expect(stripHeartbeatToken(reply)).toEqual({ type: 'silent' });
  });

  it.each([
    ['HEARTBEAT_OK CI on main is red.', 'CI on main is red.'],
    ['HEARTBEAT_OK: CI on main is red.', 'CI on main is red.'],
    ['HEARTBEAT_OK — CI on main is red.', 'CI on main is red.'],
    ['**HEARTBEAT_OK** CI on main is red.', 'CI on main is red.'],
    ['CI on main is red.\n\nHEARTBEAT_OK', 'CI on main is red.'],
    ['CI on main is red. HEARTBEAT_OK.', 'CI on main is red.'],
    ['CI on main is red.\n**HEARTBEAT_OK**', 'CI on main is red.'],
    ['HEARTBEAT_OK\nTwo mails need you.\nHEARTBEAT_OK', 'Two mails need you.'],
    ['CI on main is red — HEARTBEAT_OK', 'CI on main is red'],
    ['"HEARTBEAT_OK" CI on main is red.', 'CI on main is red.'],
  ])('%j is stripped at the edges to %j', (reply, text) => {
    expect(stripHeartbeatToken(reply)).toEqual({ type: 'reply', text, stripped: true });
  });

  it.each([
    ['I would say HEARTBEAT_OK but CI is red.'],
    ['Replying HEARTBEAT_OK was wrong: two mails need you.'],
    ['HEARTBEAT_OKAY'],
    ['xHEARTBEAT_OK'],
    ['HEARTBEAT_OK_2 is a test name'],
    ['All good.HEARTBEAT_OK'],
    ['> I nearly said HEARTBEAT_OK, but CI is red.'],
    ['```\nHEARTBEAT_OK\nbuild 412 failed\n```'],
    ['HEARTBEAT OK'],
    ['Nothing new.'],
  ])('%j is delivered untouched', (reply) => {
    expect(stripHeartbeatToken(reply)).toEqual({ type: 'reply', text: reply, stripped: false });
  });
});

describe('decideDelivery', () => {
  it('sends nothing for the token alone', () => {
    expect(decideDelivery('HEARTBEAT_OK', [])).toEqual({ type: 'nothing' });
  });
  it('still sends attachments when the text was only the token', () => {
    expect(decideDelivery('HEARTBEAT_OK', ['/w/chart.png'])).toEqual({
      type: 'deliver',
      text: '',
      media: ['/w/chart.png'],
    });
  });
  it('sends stripped text', () => {
    expect(decideDelivery('Build failed. HEARTBEAT_OK', [])).toEqual({
      type: 'deliver',
      text: 'Build failed.',
      media: [],
    });
  });
});
