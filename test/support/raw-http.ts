/** A minimal Streamable HTTP client for tests that need the wire: one connection per request. */
import { request, type ClientRequest } from 'node:http';
import { initializeRequest } from './mcp-messages.js';

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The JSON-RPC messages of the body: SSE `data:` lines, or the JSON body itself. */
  messages: { id?: unknown; result?: unknown; error?: { code: number; message: string } }[];
}

/** Parses a reply body into its JSON-RPC messages. */
function messagesOf(body: string, contentType: string | undefined): RawReply['messages'] {
  if (contentType?.startsWith('text/event-stream'))
    return body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as RawReply['messages'][number]);
  if (body === '') return [];
  const parsed = JSON.parse(body) as RawReply['messages'][number];
  return Array.isArray(parsed) ? parsed : [parsed];
}

/**
 * POSTs `body` to `url` on a connection of its own (closed after the answer). `reply` resolves
 * when the response has ended; `req` lets a test drop the request.
 */
export function post(
  url: string | URL,
  body: unknown,
  sessionId?: string,
): { reply: Promise<RawReply>; req: ClientRequest } {
  const text = JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'content-length': String(Buffer.byteLength(text)),
  };
  if (sessionId !== undefined) {
    headers['mcp-session-id'] = sessionId;
    headers['mcp-protocol-version'] = initializeRequest.params.protocolVersion;
  }
  let req!: ClientRequest;
  const reply = new Promise<RawReply>((resolve, reject) => {
    req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      let received = '';
      res.setEncoding('utf8').on('data', (d: string) => (received += d));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          body: received,
          messages: messagesOf(received, res.headers['content-type']),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
  return { reply, req };
}

/** Opens a session (initialize, then notifications/initialized) and resolves with its id. */
export async function openSession(url: string | URL): Promise<string> {
  const init = await post(url, initializeRequest).reply;
  const id = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof id !== 'string')
    throw new Error(`initialize: HTTP ${init.status} ${init.body}`);
  const initialized = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id)
    .reply;
  if (initialized.status !== 202) throw new Error(`initialized: HTTP ${initialized.status}`);
  return id;
}

/** A tools/call request. */
export function callRequest(id: number | string, name: string, args: object = {}): object {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** A notifications/cancelled for request `id`. */
export function cancelNotification(id: number | string): object {
  return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } };
}

/**
 * One raw HTTP request, every header as given (Host included), the body sent in `chunks`. The
 * server may answer and close before the whole body is written: a broken pipe or a reset is no
 * error then.
 */
export function rawRequest(
  url: string | URL,
  headers: Record<string, string>,
  chunks: readonly (string | Buffer)[] = [],
  method = 'POST',
): Promise<Omit<RawReply, 'messages'>> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
    );
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}
