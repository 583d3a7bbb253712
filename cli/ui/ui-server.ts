/**
 * The web front's HTTP server: the page, the run's records as Server-Sent Events, and the buttons'
 * endpoints. Loopback only, and requests must name the server's own host (a page of another site
 * cannot drive it, nor reach it through DNS rebinding). The event stream and the buttons' endpoints
 * also need the server's random token (`?token=`), which only the page it serves holds, and refuse a
 * foreign `Origin` or `Sec-Fetch-Site`: another site cannot start a run, even with a GET.
 *
 * A malformed request (a target that is not a path, an unknown method or route, a body that is not
 * JSON or is too large, oversized headers) gets a 4xx and changes nothing; no request can stop the
 * server.
 *
 * | request                      | answer                                                       |
 * | ---------------------------- | ------------------------------------------------------------ |
 * | `GET /`, `/app.js`, `/app.css` | the page, under {@link PAGE_POLICY}                        |
 * | `GET /events?token=`         | `text/event-stream`: a `session` record, then every record of the current run from its `batch` record, then those of later runs; one JSON record per event |
 * | `POST /run?token=`           | 202 a run starts; 409 one is going                           |
 * | `POST /cancel?token=`        | 202 the batch is being cancelled; 409 no run going, or a replay |
 * | `POST /calls/<i>/cancel?t…`  | 202 call i is being cancelled; 409 it has ended or no run is going; 404 no such call |
 * | `POST /calls/<i>/approve?t…`, `/refuse` | optional body `{ "note": "…" }` (the person's note for the model) and, approving, `"args": {…}` (corrected arguments): 202 call i goes on, or ends refused; 400 a body of another shape; 409 it waits for no approval, or was approved or refused already (the first answer counts) |
 * | `POST /calls/<i>/answer?t…`  | body `{ "action": "accept", "content": {…} }`, `{ "action": "decline" }` or `{ "action": "cancel" }`, with `"question": n` for the call's n-th question: 202 the tool has its answer; 400 the content does not fit the question; 409 no question is open, or that one was answered already (the first answer counts) |
 *
 * A page that connects while a call waits for a person (a reload, a second tab, the stream
 * reconnecting) gets the run from its `batch` record, so it shows every open question and
 * pending approval, and its answer reaches the call as the first page's would.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Subscription } from 'rxjs';
import { loadPageAssets, type PageAssets } from './page-assets.js';
import { callRequest } from './call-request.js';
import { RunController } from './run-controller.js';
import type { StreamRecord } from './run-records.js';
import type { RunSource } from './run-source.js';
import { visible } from '../views/visible.js';
import { checkBody, checkOwnPage, newToken, parseTarget } from './request-guard.js';

/** What the server shows and where it listens. */
export interface UiServerOptions {
  source: RunSource;
  /** Default 0: any free port. */
  port?: number;
  /** A loopback address; default 127.0.0.1. */
  host?: string;
  /** Starts the first run when the first page connects (default false: it waits for Run). */
  autoRun?: boolean;
  /** The page's files; default {@link loadPageAssets}. */
  assets?: PageAssets;
  /** Where a call's trace is shown: a URL with `{traceId}` (and `{spanId}`); see `--trace-url`. */
  traceUrl?: string;
}

/** A running web front. */
export interface UiServer {
  /** Where the page is, e.g. `http://127.0.0.1:40123/`. */
  readonly url: URL;
  /**
   * The token the event stream and the actions require as `?token=`: random per server, written
   * into the page it serves (`<meta name="agenttool-token">`).
   */
  readonly token: string;
  /** Its runs, for an application that starts or cancels one itself. */
  readonly runs: RunController;
  /** Cancels a running batch, ends the event streams, and stops listening. */
  close(): Promise<void>;
}

const HEARTBEAT_MS = 15_000;

/**
 * The page's Content-Security-Policy: its own script and stylesheet only (no inline script, no
 * eval), requests to this server only, images inline or from the web (a tool's image output), no
 * form sent anywhere (a question's form is read by the script), and no framing.
 */
export const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
  "img-src 'self' data: https: http:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A record as JSON; a `details` value JSON cannot hold is dropped rather than failing the stream. */
function recordJson(record: StreamRecord): string {
  try {
    return JSON.stringify(record);
  } catch {
    if (record.type !== 'event' || record.result === undefined) throw new Error('unserialisable');
    return JSON.stringify({ ...record, result: { ...record.result, details: undefined } });
  }
}

function answer(res: ServerResponse, status: number, body: { ok: true } | { error: string }): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** The page with the server's token in a `<meta>` element the script reads. */
function withToken(html: string, token: string): string {
  return html.replace(/<head>/i, `<head>\n    <meta name="agenttool-token" content="${token}" />`);
}

/** Starts the server; resolves once it listens. */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const assets = options.assets ?? (await loadPageAssets());
  const requests = new UiRequests(options, assets);
  const server = createServer((req, res) => {
    requests.handle(req, res).catch((err: unknown) => {
      process.stderr.write(
        `agenttool ui: a request failed: ${visible(String((err as Error).message))}\n`,
      );
      answer(res, 500, { error: 'the request failed' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  requests.listening(`${hostPart}:${address.port}`, `localhost:${address.port}`);
  const runs = requests.runs;
  return {
    url: new URL(`http://${hostPart}:${address.port}/`),
    token: requests.token,
    runs,
    close: async () => {
      runs.close();
      requests.endStreams();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

/** What the server answers, request by request: the page, the event stream, the buttons. */
class UiRequests {
  readonly runs: RunController;
  readonly token = newToken();
  private readonly streams = new Set<ServerResponse>();
  private readonly session: StreamRecord;
  // Filled in once listening: the Host values (and so the origins) this server answers to.
  private readonly hosts = new Set<string>();
  private readonly origins = new Set<string>();
  private readonly files: Record<string, [string, string]>;

  constructor(
    private readonly options: UiServerOptions,
    assets: PageAssets,
  ) {
    const { source } = options;
    this.runs = new RunController(source);
    this.session = {
      type: 'session',
      mode: source.mode,
      title: source.title,
      ...(options.traceUrl === undefined ? {} : { traceUrl: options.traceUrl }),
    };
    const html = withToken(assets.html, this.token);
    this.files = {
      '/': ['text/html; charset=utf-8', html],
      '/index.html': ['text/html; charset=utf-8', html],
      '/app.js': ['text/javascript; charset=utf-8', assets.js],
      '/app.css': ['text/css; charset=utf-8', assets.css],
    };
  }

  /** The server listens: these are the Host values it answers to. */
  listening(...hosts: string[]): void {
    for (const host of hosts) this.hosts.add(host);
    for (const host of this.hosts) this.origins.add(`http://${host}`);
  }

  /** Ends every event stream (the server is closing). */
  endStreams(): void {
    for (const res of this.streams) res.end();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.hosts.has(req.headers.host ?? ''))
      return answer(res, 403, { error: 'this server answers its own host name only' });
    const target = parseTarget(req.url);
    if (target === undefined)
      return answer(res, 400, { error: 'the request target is not a path' });
    const { path, query } = target;
    if (req.method === 'GET' && path === '/events') {
      const refused = checkOwnPage(req, query, this.origins, this.token);
      return refused === undefined ? this.stream(res) : answer(res, refused.status, refused);
    }
    if (req.method === 'GET' || req.method === 'HEAD') return this.file(req.method, path, res);
    if (req.method !== 'POST') return answer(res, 405, { error: `${req.method} is not served` });
    const refused = checkOwnPage(req, query, this.origins, this.token);
    if (refused !== undefined) return answer(res, refused.status, refused);
    const body = await checkBody(req);
    if ('status' in body) return answer(res, body.status, body);
    this.post(path, body.value, res);
  }

  /** One of the page's files, under {@link PAGE_POLICY}. */
  private file(method: 'GET' | 'HEAD', path: string, res: ServerResponse): void {
    const file = this.files[path];
    if (file === undefined) return answer(res, 404, { error: `no ${path} here` });
    res.writeHead(200, {
      'content-type': file[0],
      'cache-control': 'no-store',
      'content-security-policy': PAGE_POLICY,
    });
    res.end(method === 'HEAD' ? undefined : file[1]);
  }

  /** The event stream: the session record, then the runs' records, with a heartbeat. */
  private stream(res: ServerResponse): void {
    const runs = this.runs;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.write('retry: 1000\n\n');
    const send = (record: StreamRecord): void => void res.write(`data: ${recordJson(record)}\n\n`);
    send(this.session);
    this.streams.add(res);
    // Before subscribing, so that the page gets the run's batch record and not the preview's too.
    if (this.options.autoRun === true && runs.runCount === 0) runs.start();
    const subscription: Subscription = runs.records.subscribe({
      next: send,
      complete: () => res.end(),
    });
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
    res.once('close', () => {
      clearInterval(heartbeat);
      subscription.unsubscribe();
      this.streams.delete(res);
    });
  }

  /** A button: run, cancel, or an action on one call. */
  private post(path: string, body: unknown, res: ServerResponse): void {
    const runs = this.runs;
    const mode = this.options.source.mode;
    if (path === '/run')
      return runs.start()
        ? answer(res, 202, { ok: true })
        : answer(res, 409, { error: 'a run is going: cancel it or wait for it to end' });
    if (path === '/cancel')
      return runs.cancel()
        ? answer(res, 202, { ok: true })
        : answer(res, 409, {
            error: mode === 'live' ? 'no run is going' : 'a replay cannot be cancelled',
          });
    const call = /^\/calls\/(\d+)\/(cancel|approve|refuse|answer)$/.exec(path);
    if (call === null) return answer(res, 404, { error: `no ${path} here` });
    const action = call[2] as 'cancel' | 'approve' | 'refuse' | 'answer';
    const reply = callRequest(runs, mode === 'live', Number(call[1]), action, body);
    answer(res, reply.status, reply.body);
  }
}
