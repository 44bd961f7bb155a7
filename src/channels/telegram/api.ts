// The one place a grammY Api client is made: the token, and the Bot API server (`apiRoot`: Telegram's,
// a local Bot API server, or the fake one of the tests). Every call of the channel goes through it.
import { Api } from 'grammy';

export const DEFAULT_API_ROOT = 'https://api.telegram.org';

export type BotApi = Api;

export function makeApi(token: string, apiRoot: string | undefined): BotApi {
  // Covers a 30 s long poll with room, and the upload of a big file on a slow line; grammY aborts a
  // call at this bound rather than hang on a dead connection.
  return new Api(token, { apiRoot: apiRoot ?? DEFAULT_API_ROOT, timeoutSeconds: 120 });
}

/** Where a file from getFile is downloaded: `<root>/file/bot<token>/<file_path>`. Never logged. */
export function fileUrl(token: string, apiRoot: string | undefined, filePath: string): string {
  const root = (apiRoot ?? DEFAULT_API_ROOT).replace(/\/+$/, '');
  const path = filePath.split('/').map(encodeURIComponent).join('/');
  return `${root}/file/bot${token}/${path}`;
}

/**
 * grammY types its signals with the abort-controller shim's class; at run time it hands them to
 * node-fetch, which takes Node's own AbortSignal. Only the type differs.
 */
export const grammySignal = (signal: AbortSignal): Parameters<BotApi['getMe']>[0] =>
  signal as unknown as Parameters<BotApi['getMe']>[0];
