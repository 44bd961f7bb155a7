// Live progress through the built relay on the fake Discord (REST and the gateway on 127.0.0.1): the
// checks of progress-suite.ts in a DM, the status message posted, PATCHed and DELETEd on the opened
// DM channel. Needs `npm run build`.
import {
  DM_CHANNEL_ID,
  type FakeDiscord,
  message,
  startFakeDiscord,
  TOKEN,
  USER_ID,
} from '../channels/discord/fake-discord.js';
import { waitFor } from './helpers.js';
import { progressSuite } from './progress-suite.js';

const MESSAGE = new RegExp(`^/channels/${DM_CHANNEL_ID}/messages/(\\d+)$`);

progressSuite('live progress through the relay on Discord', async () => {
  const fake: FakeDiscord = await startFakeDiscord();
  let identified = 0;
  const posts = () =>
    fake.callsOf('POST', new RegExp(`^/channels/${DM_CHANNEL_ID}/messages$`)).filter((c) => c.status === 200);
  const idOf = (route: string) => MESSAGE.exec(route)?.[1] ?? '';
  return {
    name: 'discord',
    section: { enabled: true, apiRoot: fake.api, allowFrom: [USER_ID] },
    statusLine: /^running `cat f\d+\.txt`$/,
    env: { DISCORD_BOT_TOKEN: TOKEN },
    connections: () => identified,
    connected: async () => {
      const up = await waitFor(() => fake.live(), 60_000);
      identified += 1;
      return up;
    },
    push: (text) => {
      fake.dispatch('MESSAGE_CREATE', message({ content: text }));
    },
    sends: () => posts().map((c) => String(c.body.content ?? '')),
    sentId: (n) => {
      const a = posts()[n]?.answer as { id?: string } | undefined;
      return a?.id;
    },
    edits: () =>
      fake
        .callsOf('PATCH', MESSAGE)
        .filter((c) => c.status === 200)
        .map((c) => ({ id: idOf(c.route), text: String(c.body.content ?? '') })),
    deletes: () =>
      fake
        .callsOf('DELETE', MESSAGE)
        .filter((c) => c.status === 204)
        .map((c) => idOf(c.route)),
    close: () => fake.close(),
  };
});
