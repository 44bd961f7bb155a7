// doctor's sandbox check: only when an agent uses bwrap; bwrap's own refusal (user namespaces off)
// is a failure that says what to change; a working bwrap is ok.
import { describe, expect, it } from 'vitest';
import { bwrapMissing } from '../../helpers/bwrap.js';
import { CLAUDE_OK, doctor, fakeCli, setup } from './helpers.js';

const sandboxed = "{whatsapp: {enabled: false}, console: {port: 0}, agent: {sandbox: 'bwrap'}}";
const missing = bwrapMissing();

describe('doctor: sandbox', () => {
  it('is not checked when no agent uses it', async () => {
    const s = setup();
    fakeCli(s, 'claude', CLAUDE_OK);
    const findings = await doctor(s);
    expect(findings.find((f) => f.check === 'sandbox')).toBeUndefined();
  });

  it('a bwrap that cannot make namespaces fails with its reason and the setting to change', async () => {
    const s = setup(sandboxed);
    fakeCli(s, 'claude', CLAUDE_OK);
    fakeCli(
      s,
      'bwrap',
      'echo "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2; exit 1',
    );
    const f = (await doctor(s)).find((x) => x.check === 'sandbox');
    expect(f?.status).toBe('fail');
    expect(f?.message).toMatch(
      /^claude must run in the bwrap sandbox, but bwrap cannot make one here \(bwrap: No permissions/,
    );
    expect(f?.fix).toMatch(/unprivileged_userns_clone/);
  });

  it.skipIf(missing)(`a working bwrap is ok${missing ? ` (skipped: ${missing})` : ''}`, async () => {
    const s = setup(sandboxed);
    fakeCli(s, 'claude', CLAUDE_OK);
    s.env.PATH = `${s.bin}:/usr/bin:/bin`;
    const f = (await doctor(s)).find((x) => x.check === 'sandbox');
    expect(f).toMatchObject({ status: 'ok' });
    expect(f?.message).toMatch(/^bwrap makes sandboxes here \(.*bwrap; for claude\)$/);
  });
});
