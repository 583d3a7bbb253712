/**
 * A Redis of the test's own: Debian's `redis-server` started on a free loopback port, with no
 * persistence, stopped by its PID. Tests that need one say they were skipped when it is missing
 * (`.ci/run` installs it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { reaped } from './reaper.js';
import { lastLines, scaled } from './time.js';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { freePort } from './nginx.js';

/** The redis-server binary, if this machine has one. */
export function findRedis(): string | undefined {
  const dirs = ['/usr/bin', '/usr/sbin', '/usr/local/bin'];
  for (const dir of [...dirs, ...(process.env.PATH ?? '').split(delimiter)]) {
    const candidate = join(dir, 'redis-server');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** A running redis-server of the test's own. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Kills it at once (SIGKILL), as a dying Redis would go, and waits for it to exit. */
  kill(): Promise<void>;
}

/** Whether a Redis answers PING on `port` now. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let said = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('\r\n')) done(said.startsWith('+PONG'));
    });
  });
}

/**
 * Starts `redis-server` (see {@link findRedis}) on a free port (or `port`: a Redis that comes
 * back where it was), without persistence, and resolves once it answers PING (within 10 s, scaled: test/support/time.ts).
 * Rejects when there is no redis-server, or it does not come up.
 */
export async function startRedis(port?: number): Promise<TestRedis> {
  const binary = findRedis();
  if (binary === undefined)
    throw new Error('redis-server is not installed (apt-get install redis-server)');
  port ??= await freePort();
  const child = reaped(
    spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
    ),
  );
  let errors = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (errors += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ceiling = scaled(10_000);
  const deadline = Date.now() + ceiling;
  while (!(await pings(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `redis-server did not answer PING on port ${port} within ${ceiling} ms: ${lastLines(errors)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    child,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
}

/** In a mocha `before`: skips the suite, saying why, when this machine has no redis-server. */
export function skipWithoutRedis(context: { skip(): void }, what: string): void {
  if (findRedis() !== undefined) return;
  process.stdout.write(
    `    SKIPPED: redis-server is not installed (apt-get install redis-server; .ci/run does): ${what} did not run\n`,
  );
  context.skip();
}
