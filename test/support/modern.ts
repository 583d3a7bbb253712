/**
 * Raw requests of MCP 2026-07-28 over Streamable HTTP: no initialize, no session; every request
 * carries its protocol version and capabilities in `_meta` and the headers the era requires.
 */

/** The revision. */
export const MODERN = '2026-07-28';

/** The per-request `_meta` of a client that declares no capability. */
export const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
};

/** The same, from a client that answers questions (elicitation, form mode). */
export const ASKABLE = {
  ...ENVELOPE,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

/** POSTs one modern JSON-RPC request with the headers the era requires; its answer as JSON. */
export async function postModern(
  url: string | URL,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
  meta: Record<string, unknown> = ENVELOPE,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const name: Record<string, string> =
    typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...name,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: { ...params, _meta: meta },
    }),
  });
  const text = await response.text();
  // An SSE answer: its last data line is the response.
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .at(-1)!;
  return {
    status: response.status,
    body: JSON.parse(data) as Record<string, unknown>,
    headers: response.headers,
  };
}
