/**
 * nginx as a load balancer in front of `agenttool serve --http` instances, run as this process's
 * child from a temporary directory: its own config, pid, logs and temp paths there, listening on a
 * loopback port chosen free. Debian's nginx package provides the binary (.ci/run installs it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { reaped } from './reaper.js';
import { scaled } from './time.js';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { root } from './cli.js';

/** The nginx binary, or undefined when none is installed. */
export function findNginx(): string | undefined {
  const dirs = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin'];
  for (const dir of [...dirs, ...(process.env.PATH ?? '').split(delimiter)]) {
    const candidate = join(dir, 'nginx');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** A loopback port free a moment ago (bound to 0, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * One of the configurations in examples/nginx/ made to run here: listening on `listen`, and the
 * upstream addresses 127.0.0.1:8101..8103 replaced by `upstreams` in order. `addHeader` lines go
 * into the `location` block (a test's `add_header`).
 */
export function exampleSite(
  name: 'stateless' | 'affine' | 'by-resource',
  listen: number,
  upstreams: readonly number[],
  addHeader: readonly string[] = [],
): string {
  let text = readFileSync(join(root, 'examples', 'nginx', `${name}.conf`), 'utf8');
  text = text.replace(/listen 127\.0\.0\.1:8100;/, `listen 127.0.0.1:${listen};`);
  text = text.replace(/127\.0\.0\.1:810([1-3])/g, (_, n: string) => {
    const port = upstreams[Number(n) - 1];
    if (port === undefined) throw new Error(`no upstream ${n}`);
    return `127.0.0.1:${port}`;
  });
  return text.replace(
    /location \/mcp \{\n/,
    (m) => m + addHeader.map((l) => `        ${l}\n`).join(''),
  );
}

/** A running nginx. */
export interface Balancer {
  readonly port: number;
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: URL;
  /** What nginx wrote to its error log so far. */
  errorLog(): string;
  stop(): Promise<void>;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts `nginx` with the http-context configuration `site(port)` on a free loopback port, trying
 * another port when the one chosen was taken in the meantime (other processes pick ports too).
 * Resolves once it accepts connections.
 */
export async function startNginx(nginx: string, site: (port: number) => string): Promise<Balancer> {
  let lastLog = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'agenttool-nginx-'));
    const port = await freePort();
    const log = join(dir, 'error.log');
    writeFileSync(join(dir, 'site.conf'), site(port));
    writeFileSync(
      join(dir, 'nginx.conf'),
      [
        'daemon off;',
        'master_process off;',
        'worker_processes 1;',
        `pid ${join(dir, 'nginx.pid')};`,
        `error_log ${log} warn;`,
        'events { worker_connections 4096; }',
        'http {',
        '    access_log off;',
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
          (kind) => `    ${kind}_temp_path ${join(dir, kind)};`,
        ),
        `    include ${join(dir, 'site.conf')};`,
        '}',
        '',
      ].join('\n'),
    );
    const child: ChildProcess = reaped(
      spawn(nginx, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', log], {
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      }),
    );
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let up = false;
    let dead = false;
    void exited.then(() => (dead = true));
    const deadline = Date.now() + scaled(5_000);
    while (Date.now() < deadline && !up && !dead) {
      await new Promise((r) => setTimeout(r, 50));
      up = await canConnect(port);
    }
    const readLog = (): string => {
      try {
        return readFileSync(log, 'utf8') + stderr;
      } catch {
        return stderr;
      }
    };
    if (up && !dead)
      return {
        port,
        url: new URL(`http://127.0.0.1:${port}/mcp`),
        errorLog: readLog,
        async stop() {
          if (!dead) {
            child.kill('SIGTERM');
            const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
            await exited;
            clearTimeout(timer);
          }
          rmSync(dir, { recursive: true, force: true });
        },
      };
    child.kill('SIGKILL');
    await exited;
    lastLog = readLog();
    rmSync(dir, { recursive: true, force: true });
    if (!/Address already in use/.test(lastLog)) break;
  }
  throw new Error(`nginx did not start: ${lastLog.trim()}`);
}
