// A warm turn's approver tells its progress listener that the turn now waits for the person, before
// it asks: the one place every driver's approvals pass (the pool wraps the turn's approver with it).
import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer, ApprovalQuestion } from '../../src/agents/types.js';
import type { ProgressEvent } from '../../src/core/progress-event.js';
import { announced } from '../../src/drivers/approval.js';
import { registerCredential } from '../../src/log.js';

describe('announced', () => {
  it('says "asking" with the question, masked, then asks; a listener that throws changes no answer', async () => {
    registerCredential('hunter2-token-value');
    const order: string[] = [];
    const seen: ProgressEvent[] = [];
    const approve = async (q: ApprovalQuestion): Promise<ApprovalAnswer> => {
      order.push(`asked ${q.summary}`);
      return { type: 'allow_once' };
    };
    const wrapped = announced(approve, (ev) => {
      order.push(ev.type);
      seen.push(ev);
      throw new Error('a broken status line');
    });
    const answer = await wrapped(
      { toolKind: 'shell', summary: 'run: curl -H hunter2-token-value x' },
      new AbortController().signal,
    );
    expect(answer).toEqual({ type: 'allow_once' });
    expect(order).toEqual(['asking', 'asked run: curl -H hunter2-token-value x']);
    expect(seen).toEqual([{ type: 'asking', question: 'run: curl -H [redacted] x', at: expect.any(Number) }]);
  });

  it('is the approver itself when nobody listens', () => {
    const approve = async (): Promise<ApprovalAnswer> => ({ type: 'deny', reason: 'no' });
    expect(announced(approve, undefined)).toBe(approve);
  });
});
