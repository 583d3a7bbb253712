let nextId = 1;

/**
 * One tools/call POSTed on its own, as a stateless client (or a load balancer passing one on)
 * sends it: no initialize before it, no session id. Resolves with the response, unread. The
 * request id is `id`, or a fresh one.
 */
export function postCall(
  url: string | URL,
  name: string,
  args: Record<string, unknown>,
  options: { id?: number; init?: RequestInit } = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? nextId++,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
    ...options.init,
  });
}
