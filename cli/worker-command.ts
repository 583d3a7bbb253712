/**
 * `agenttool worker --redis <url>`: the bundled tools (and those of any `--mcp` servers) run for
 * the calls a fleet queue holds (`runWorker` of `agenttool/redis`), `--concurrency` at a time,
 * until SIGTERM (running calls finish) or SIGINT (they are cancelled).
 */
import type { WorkerArgs } from './args.js';
import { fleetSecret } from './fleet-secret.js';
import { closeServers, connectServers, modelTools } from './mcp-servers.js';
import { reapShells } from './process-groups.js';
import { bundledTools } from './tools/index.js';
import { UsageError } from './usage-error.js';

/** `agenttool/redis`, which needs bullmq and ioredis: a usage error naming them when missing. */
export async function loadFleet(): Promise<typeof import('../adapters/redis/index.js')> {
  try {
    // The engine's registrations too (index.ts): the fleet runs its calls through executeBatch.
    await import('../index.js');
    return await import('../adapters/redis/index.js');
  } catch (err) {
    const message = (err as { message?: unknown }).message;
    if (
      (err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' &&
      typeof message === 'string' &&
      /'(bullmq|ioredis)'/.test(message)
    )
      throw new UsageError(
        '--redis needs the bullmq and ioredis packages: npm install bullmq ioredis',
      );
    throw err;
  }
}

/** The URL without its password, for messages. */
export function shownUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** How long a stopping worker waits for its queue to close before it exits anyway. */
const CLOSE_WAIT = 10_000;

export async function workerCommand(args: WorkerArgs): Promise<number> {
  const { runWorker } = await loadFleet();
  const secret = await fleetSecret(args.secretFile);
  const remotes = await connectServers(args.mcp, args.roots);
  const queue = args.queue ?? 'agenttool';
  try {
    const worker = await runWorker([...bundledTools, ...modelTools(remotes)], {
      connection: args.redis!,
      queue,
      concurrency: args.concurrency ?? 1,
      secret,
      onWarning: (message) => process.stderr.write(`agenttool: warning: ${message}\n`),
    });
    process.stderr.write(
      `agenttool: worker taking calls from queue "${queue}" at ${shownUrl(args.redis!)}, ${args.concurrency ?? 1} at a time${secret === undefined ? '' : ', signed calls only'}\n`,
    );
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
        process.once(name, () => resolve(name));
    });
    process.stderr.write(
      signal === 'SIGTERM'
        ? 'agenttool: SIGTERM: running calls finish, no new ones are taken\n'
        : `agenttool: ${signal}: running calls are cancelled\n`,
    );
    // A Redis that is gone must not hold the worker: its calls come back to the queue (or fail)
    // when their locks lapse, as for a worker killed.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const closed = await Promise.race([
      worker.close(signal !== 'SIGTERM').then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_WAIT))),
    ]);
    clearTimeout(timer);
    reapShells();
    if (!closed) {
      process.stderr.write(
        `agenttool: the worker did not close within ${CLOSE_WAIT / 1000} s (is Redis reachable?): exiting\n`,
      );
    }
    return 0;
  } finally {
    await closeServers(remotes);
  }
}
