// `agentwire doctor` for Slack: the tokens the mode needs are present and well-formed, someone is let
// in, and (online) Slack accepts the bot token: auth.test answers with the bot and its workspace.
// Never prints a token.
import type { DoctorCheck, DoctorDeps } from '../plugin.js';
import { makeApi } from './api.js';
import { describeFailure, isAuthFailure, whoAmI } from './connect.js';
import { resolveSecrets, secretProblems } from './settings.js';

export async function slackDoctor(deps: DoctorDeps): Promise<DoctorCheck[]> {
  const cfg = deps.config.slack;
  const secrets = resolveSecrets(cfg, deps.env);
  const problems = secretProblems(cfg, secrets);
  if (problems.length)
    return problems.map((p) => ({
      check: 'slack',
      status: 'fail',
      message: p.message,
      fix: 'Create the app from the manifest in docs/slack.md and copy its tokens',
    }));
  const checks: DoctorCheck[] = [];
  if (
    cfg.allowFrom !== '*' &&
    cfg.allowFrom.length === 0 &&
    (cfg.channels === '*' || cfg.channels.length === 0)
  ) {
    checks.push({
      check: 'slack:allowFrom',
      status: 'warn',
      message: 'slack.allowFrom and slack.channels are empty: the bot answers nobody',
      fix: 'Add your Slack member id (U…) to slack.allowFrom (the relay logs it when it drops your message)',
    });
  }
  if (!deps.online) {
    checks.push({ check: 'slack', status: 'ok', message: 'tokens set (not checked: offline)' });
    return checks;
  }
  try {
    const api = makeApi(secrets.botToken!, cfg.apiUrl);
    const me = await Promise.race([
      whoAmI(api),
      new Promise<never>((_r, reject) =>
        setTimeout(() => reject(new Error('timed out')), deps.timeoutMs).unref(),
      ),
    ]);
    const wrongTeam = cfg.teamId && cfg.teamId !== me.teamId;
    checks.push(
      wrongTeam
        ? {
            check: 'slack',
            status: 'fail',
            message: `the token belongs to workspace ${me.teamId}, not slack.teamId ${cfg.teamId}`,
          }
        : {
            check: 'slack',
            status: 'ok',
            message: `bot @${me.name} answers in workspace ${me.teamId} (auth.test)`,
          },
    );
  } catch (err) {
    const auth = isAuthFailure(err);
    checks.push({
      check: 'slack',
      status: auth ? 'fail' : 'warn',
      message: describeFailure(err),
      ...(auth && { fix: 'Copy the Bot User OAuth Token again (OAuth & Permissions), or reinstall the app' }),
    });
  }
  return checks;
}
