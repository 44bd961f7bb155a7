// Routes other services serve on the web console's HTTP server (the hooks of src/events/), each
// under its own path prefix and with its own authentication: they are mounted before the console's
// token check, which is for people, not for a GitHub webhook.
import type { IncomingMessage, ServerResponse } from 'node:http';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, rest: string) => void;

export class HttpRoutes {
  private readonly routes = new Map<string, RouteHandler>();

  /** `prefix` like "/hooks/": a request to "/hooks/ci" gets `rest` "ci". */
  add(prefix: string, handler: RouteHandler): void {
    if (this.routes.has(prefix)) throw new Error(`route ${prefix} added twice`);
    this.routes.set(prefix, handler);
  }

  match(path: string): { handler: RouteHandler; rest: string } | undefined {
    for (const [prefix, handler] of this.routes) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      // One path segment only: "/hooks/a/b" names no hook.
      if (rest === '' || rest.includes('/')) return undefined;
      return { handler, rest };
    }
    return undefined;
  }
}
