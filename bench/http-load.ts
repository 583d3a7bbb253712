/**
 * A small MCP client over Streamable HTTP for load: plain node:http on a keep-alive agent, one
 * session per client, each call a POST whose answer (JSON or a short SSE stream) is read whole.
 * The SDK's own client does much more per call (schema checks, bookkeeping) and would make the
 * load generator, not the server, the thing measured.
 *
 * @module
 */
import { Agent, request } from 'node:http';

interface Answer {
  status: number;
  sessionId: string | undefined;
  body: string;
}

/** The JSON-RPC message in an answer: the body itself, or the last `data:` line of an SSE stream. */
function messageOf(answer: Answer): {
  result?: { isError?: boolean; protocolVersion?: string };
  error?: unknown;
} {
  const text = answer.body;
  if (text.startsWith('{')) return JSON.parse(text) as never;
  const at = text.lastIndexOf('data: ');
  if (at === -1) throw new Error(`no message in answer: ${text.slice(0, 200)}`);
  const end = text.indexOf('\n', at);
  return JSON.parse(text.slice(at + 6, end === -1 ? undefined : end)) as never;
}

/** One MCP session over HTTP. */
/** The per-request `_meta` of MCP 2026-07-28. */
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench-load', version: '1.0.0' },
};

export class HttpMcpClient {
  private sessionId: string | undefined = undefined;
  private protocolVersion: string;
  private nextId = 1;

  /**
   * `modern`: MCP 2026-07-28, no initialize and no session; every call carries the per-request
   * `_meta` and the `Mcp-Method`/`Mcp-Name` headers. Otherwise 2025-06-18 in a session.
   */
  constructor(
    private readonly url: URL,
    private readonly agent: Agent,
    private readonly modern = false,
  ) {
    this.protocolVersion = modern ? '2026-07-28' : '2025-06-18';
  }

  private post(message: object, extra: Record<string, string> = {}): Promise<Answer> {
    const body = JSON.stringify(message);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': String(Buffer.byteLength(body)),
      'mcp-protocol-version': this.protocolVersion,
      ...extra,
    };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    return new Promise((resolve, reject) => {
      const req = request(this.url, { method: 'POST', agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const header = res.headers['mcp-session-id'];
          resolve({
            status: res.statusCode ?? 0,
            sessionId: typeof header === 'string' ? header : undefined,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Opens the session: initialize, then the initialized notification. */
  async initialize(): Promise<void> {
    if (this.modern) return;
    const answer = await this.post({
      jsonrpc: '2.0',
      id: this.nextId++,
      method: 'initialize',
      params: {
        protocolVersion: this.protocolVersion,
        capabilities: {},
        clientInfo: { name: 'bench-load', version: '1.0.0' },
      },
    });
    if (answer.status !== 200 || answer.sessionId === undefined)
      throw new Error(`initialize: HTTP ${answer.status} ${answer.body.slice(0, 200)}`);
    this.sessionId = answer.sessionId;
    const version = messageOf(answer).result?.protocolVersion;
    if (version !== undefined) this.protocolVersion = version;
    const notified = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (notified.status !== 202) throw new Error(`initialized: HTTP ${notified.status}`);
  }

  /** Calls a tool; rejects on an HTTP error, a JSON-RPC error or an isError result. */
  async call(name: string, args: object): Promise<void> {
    const answer = this.modern
      ? await this.post(
          {
            jsonrpc: '2.0',
            id: this.nextId++,
            method: 'tools/call',
            params: { name, arguments: args, _meta: MODERN_META },
          },
          { 'mcp-method': 'tools/call', 'mcp-name': name },
        )
      : await this.post({
          jsonrpc: '2.0',
          id: this.nextId++,
          method: 'tools/call',
          params: { name, arguments: args },
        });
    if (answer.status !== 200) throw new Error(`tools/call: HTTP ${answer.status}`);
    const message = messageOf(answer);
    if (
      message.error !== undefined ||
      message.result === undefined ||
      message.result.isError === true
    )
      throw new Error(`tools/call ${name}: ${answer.body.slice(0, 200)}`);
  }
}

/** What a load run saw. */
export interface LoadResult {
  readonly calls: number;
  readonly seconds: number;
  /** Milliseconds, one per call. */
  readonly latencies: number[];
}

const CALLS: readonly [string, object][] = [
  ['upper', { text: 'hello, world' }],
  ['add', { a: 2, b: 40 }],
];

/**
 * Every client calls in a loop, one call at a time, alternating `upper` and `add`, until `seconds`
 * have passed; resolves with the calls made and each call's latency.
 */
export async function drive(
  clients: readonly HttpMcpClient[],
  seconds: number,
): Promise<LoadResult> {
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    clients.map(async (client, c) => {
      for (let i = c; performance.now() < end; i++) {
        const [name, args] = CALLS[i % CALLS.length];
        const t0 = performance.now();
        await client.call(name, args);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { calls: latencies.length, seconds: (performance.now() - start) / 1000, latencies };
}
