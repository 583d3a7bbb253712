/**
 * `agenttool ui`: the web front. Serves a page on loopback that runs a turn live (or replays a
 * saved run) and shows it as it happens; prints the address and opens it in a browser.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { ToolSet, type Tool } from '../../index.js';
import { bundledTools, reapShells } from '../tools/index.js';
import type { UiArgs } from '../args.js';
import { fleetSecret } from '../fleet-secret.js';
import { closeServers, connectServers, modelTools } from '../mcp-servers.js';
import { loadFleet } from '../worker-command.js';
import { readTurn } from '../read-turn.js';
import { UsageError } from '../usage-error.js';
import { liveTurn } from './live-turn.js';
import { parseRun, replayRun } from './replay-run.js';
import type { RunSource } from './run-source.js';
import { startUiServer } from './ui-server.js';

/**
 * Opens `url` in the desktop's browser, when there is a desktop: on Linux only with a display, so
 * that a terminal browser never takes over the terminal. Failures are ignored: the address is
 * printed anyway.
 */
export function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  if (
    process.platform !== 'darwin' &&
    process.platform !== 'win32' &&
    process.env.DISPLAY === undefined &&
    process.env.WAYLAND_DISPLAY === undefined
  )
    return;
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener: the address is on stderr.
  }
}

async function replaySource(file: string): Promise<RunSource> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return replayRun(parseRun(text, file), { title: file });
}

/** Serves `source` until SIGINT or SIGTERM, then cancels a running batch. */
async function serve(source: RunSource, args: UiArgs): Promise<number> {
  const server = await startUiServer({
    source,
    autoRun: true,
    ...(args.port === undefined ? {} : { port: args.port }),
    ...(args.traceUrl === undefined ? {} : { traceUrl: args.traceUrl }),
  });
  process.stderr.write(
    `agenttool: the web front is at ${server.url.href} (${source.title}; Ctrl-C to stop)\n`,
  );
  if (args.open) openBrowser(server.url.href);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}

/**
 * Runs the command: serves until SIGINT or SIGTERM, then cancels a running batch, kills what its
 * shells started and closes the MCP servers; resolves to 0. Bad input throws a UsageError.
 */
export async function uiCommand(args: UiArgs): Promise<number> {
  if (args.replay !== undefined) return serve(await replaySource(args.replay), args);
  const items = await readTurn(args.input);
  const remotes = await connectServers(args.mcp, args.roots);
  let fleet: { tools: readonly Tool[]; close(): Promise<void> } | undefined;
  try {
    // With --redis, every call runs on the fleet's workers (see agenttool worker).
    fleet =
      args.redis === undefined
        ? undefined
        : (await loadFleet()).queueTools([...bundledTools, ...modelTools(remotes)], {
            connection: args.redis,
            queue: args.queue ?? 'agenttool',
            secret: await fleetSecret(args.secretFile),
          });
    const tools = new ToolSet(fleet?.tools ?? [...bundledTools, ...modelTools(remotes)]);
    tools.validate();
    const source = liveTurn(items, tools, {
      title: args.input === undefined || args.input === '-' ? 'stdin' : args.input,
      sequential: args.sequential,
      approve: args.approve,
      // Each run of the page is a batch of its own on the fleet: run again, the calls run again.
      keyEachRun: fleet !== undefined,
      ...(args.maxParallel === undefined ? {} : { maxParallel: args.maxParallel }),
      ...(args.timeout === undefined ? {} : { timeout: args.timeout }),
    });
    return await serve(source, args);
  } finally {
    reapShells();
    await fleet?.close();
    await closeServers(remotes);
  }
}
