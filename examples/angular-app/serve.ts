/**
 * A small static server for the built app, with `Content-Security-Policy: script-src 'self'`:
 * no inline script, no eval. Loopback only.
 *
 *     node --import tsx examples/angular-app/serve.ts [port]    # default 4200
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { APP_ROOT } from './build.js';

/** The policy every answer carries. */
export const CSP = "script-src 'self'";

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.svg': 'image/svg+xml',
};

/** A running static server. */
export interface AppServer {
  /** The page, e.g. `http://127.0.0.1:4200/`. */
  readonly url: URL;
  close(): Promise<void>;
}

/**
 * Serves the files of `folder` on 127.0.0.1 (`port` 0: any free port), index.html for `/`, with
 * {@link CSP} on every answer; a path outside the folder or a missing file is 404.
 */
export function serveApp(folder: string, port = 0): Promise<AppServer> {
  const rootDir = resolve(folder);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(rootDir, path === '/' ? 'index.html' : path));
    const headers = { 'content-security-policy': CSP, 'x-content-type-options': 'nosniff' };
    if (req.method !== 'GET' || !file.startsWith(rootDir + sep)) {
      res.writeHead(404, headers).end();
      return;
    }
    readFile(file).then(
      (body) => {
        const type = TYPES[extname(file)] ?? 'application/octet-stream';
        res.writeHead(200, { ...headers, 'content-type': type }).end(body);
      },
      () => res.writeHead(404, headers).end(),
    );
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      done({
        url: new URL(`http://127.0.0.1:${bound}/`),
        close: () =>
          new Promise<void>((closed) => {
            server.close(() => closed());
            server.closeAllConnections();
          }),
      });
    });
  });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = await serveApp(join(APP_ROOT, 'dist', 'browser'), Number(process.argv[2] ?? 4200));
  process.stdout.write(`serving the app at ${app.url.href} (Ctrl-C stops)\n`);
}
