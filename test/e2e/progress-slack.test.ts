// Live progress through the built relay on the fake Slack (Web API and Socket Mode on 127.0.0.1):
// the checks of progress-suite.ts, the status message posted by chat.postMessage, edited by
// chat.update and deleted by chat.delete. Needs `npm run build`.

import { APP_TOKEN, BOT_TOKEN, messageEvent, startFakeSlack } from '../channels/slack/fake-slack.js';
import { waitFor } from './helpers.js';
import { progressSuite } from './progress-suite.js';

const OWNER = 'U0OWNER01';
const DM = 'D0DM00001';

progressSuite('live progress through the relay on Slack', async () => {
  const fake = await startFakeSlack();
  const posts = () => fake.callsOf('chat.postMessage').filter((c) => c.params.channel === DM);
  return {
    name: 'slack',
    section: { enabled: true, apiUrl: fake.apiUrl, allowFrom: [OWNER] },
    statusLine: /^running `cat f\d+\.txt`$/,
    env: { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN },
    connections: () => fake.callsOf('apps.connections.open').length,
    connected: (before) =>
      waitFor(() => fake.sockets() > 0 && fake.callsOf('apps.connections.open').length > before, 60_000),
    push: (text) => {
      fake.push(messageEvent({ channel: DM, user: OWNER, text }));
    },
    sends: () => posts().map((c) => String(c.params.text)),
    // The fake answers each post with a fresh ts; the relay holds it as the message's id.
    sentId: (n) => {
      const ts = posts()[n]?.answer?.ts;
      return ts === undefined ? undefined : String(ts);
    },
    edits: () =>
      fake
        .callsOf('chat.update')
        .filter((c) => c.params.channel === DM)
        .map((c) => ({ id: String(c.params.ts), text: String(c.params.text) })),
    deletes: () =>
      fake
        .callsOf('chat.delete')
        .filter((c) => c.params.channel === DM)
        .map((c) => String(c.params.ts)),
    close: () => fake.close(),
  };
});
