#!/usr/bin/env node
/**
 * `agenttool`: replay a model turn through the executor (`run`), watch it in a browser (`ui`),
 * serve tools over MCP (`serve`), or run calls for a fleet (`worker`). Exit status: 0 done, 1 a
 * call failed, 2 bad input.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from './args.js';
import { commandHelp, help } from './options.js';
import { MCP_SERVER_SDK, withMcpSdk } from './mcp-sdk.js';
import { reapOnExit } from './reap-on-exit.js';
import { reapShells } from './process-groups.js';
import { visible } from './views/visible.js';
import type { Otlp } from './otlp.js';
import { UsageError } from './usage-error.js';

/** Bad input: an unreadable file, invalid items, an unknown option. */
const EXIT_BAD_INPUT = 2;

/**
 * The package's version, from its package.json: two folders up from the compiled `dist/cli/`, one
 * from the sources' `cli/`.
 */
function version(): string {
  for (const up of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'agenttool' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not there: the next place
    }
  }
  return 'unknown';
}

async function main(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
  switch (args.command) {
    case 'help':
      process.stdout.write(args.of === undefined ? help() : commandHelp(args.of));
      return 0;
    case 'version':
      process.stdout.write(`agenttool ${version()}\n`);
      return 0;
    // Loaded on demand, so that help and bad options answer without loading the engine or the SDK.
    case 'run':
      return traced(args.otlp, async (otlp) => {
        const { runCommand } = await import('./run-command.js');
        // One trace for the run: its calls' spans are children of this one.
        return otlp === undefined
          ? runCommand(args)
          : otlp.within('agenttool run', () => runCommand(args));
      });
    case 'serve':
      return traced(args.otlp, async () =>
        (
          await withMcpSdk('agenttool serve', MCP_SERVER_SDK, () =>
            // On stdio without --mcp, initialize is answered before the engine loads.
            args.http === undefined && args.mcp.length === 0
              ? import('./serve-bundled.js')
              : import('./serve-command.js'),
          )
        ).serveCommand(args),
      );
    case 'ui':
      return traced(args.otlp, async () => (await import('./ui/ui-command.js')).uiCommand(args));
    case 'worker':
      return traced(args.otlp, async () =>
        (await import('./worker-command.js')).workerCommand(args),
      ).then((status) =>
        // Closed, spans sent: connections that lost Redis end only at their next try (up to 2 s
        // away), and nothing is left for them to do, so the process does not wait for them.
        process.exit(status),
      );
  }
}

/** Runs `command` with its spans exported to `otlp` (`--otlp`), sent before it returns. */
async function traced(
  otlp: string | undefined,
  command: (otlp: Otlp | undefined) => Promise<number>,
): Promise<number> {
  if (otlp === undefined) return command(undefined);
  const exporting = await (await import('./otlp.js')).startOtlp(otlp, 'agenttool');
  try {
    return await command(exporting);
  } finally {
    await exporting.stop();
  }
}

// Whatever ends the process, the commands its bash calls started end with it.
reapOnExit();
main(process.argv.slice(2)).then(
  (status) => {
    reapShells();
    process.exitCode = status;
  },
  (err: unknown) => {
    reapShells();
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`agenttool: ${visible(message.replace(/\s*\n\s*/g, ' '))}\n`);
    process.exitCode = err instanceof UsageError ? EXIT_BAD_INPUT : 1;
  },
);
