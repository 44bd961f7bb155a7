// fetch for a user's HTTP MCP server, with each response body capped: a server that floods would
// otherwise be read into the relay's memory whole. Past the cap the body errors, so the call that
// waited on it fails with a sentence and the relay goes on.
export function cappedFetch(maxBytes: number): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body) return res;
    let seen = 0;
    const cap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        seen += chunk.byteLength;
        if (seen > maxBytes)
          ctl.error(new Error(`the server sent more than ${maxBytes} bytes in one response`));
        else ctl.enqueue(chunk);
      },
    });
    return new Response(res.body.pipeThrough(cap), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}
