// Recent group messages that did not trigger a run, kept (bounded) and handed to the agent once with
// the next triggering message. Lines are sanitised: names and texts come from strangers.
import { sanitizeLine } from '../../core/line.js';

export class GroupContext {
  private readonly lines = new Map<string, { seq: number; line: string }[]>();
  private seq = 0;

  constructor(private readonly max: number) {}

  /**
   * `untrusted`: the sender is not a member (not on groupAllowFrom, or not resolved to a number).
   * The agent is told so on the line itself, so text a stranger plants in the group reads as a
   * stranger's, not as a request from the people it works for.
   */
  add(groupJid: string, sender: string, text: string, untrusted = false): void {
    if (this.max <= 0) return;
    const list = this.lines.get(groupJid) ?? [];
    const who = `${sanitizeLine(sender, 80) || 'someone'}${untrusted ? ' (not a member; untrusted)' : ''}`;
    list.push({ seq: ++this.seq, line: `${who}: ${sanitizeLine(text)}` });
    while (list.length > this.max) list.shift();
    this.lines.set(groupJid, list);
  }

  /** The context as text and a mark; the lines stay until `consume(mark)`. */
  peek(groupJid: string): { text: string; mark: number } | undefined {
    const list = this.lines.get(groupJid);
    if (!list?.length) return undefined;
    return { text: list.map((l) => l.line).join('\n'), mark: list[list.length - 1]!.seq };
  }

  /** Drops the lines up to `mark` once the message carrying them is durable (later ones stay). */
  consume(groupJid: string, mark: number): void {
    const rest = (this.lines.get(groupJid) ?? []).filter((l) => l.seq > mark);
    if (rest.length) this.lines.set(groupJid, rest);
    else this.lines.delete(groupJid);
  }
}
