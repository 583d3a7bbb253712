/**
 * However the CLI process ends, no command a `bash` call started outlives it: the process groups
 * still running are killed (SIGKILL) when the process exits (a command's end, `process.exit`, an
 * uncaught error), and on SIGHUP, SIGINT or SIGTERM that no command is waiting for.
 *
 * Why not `signal-exit` (4.1.0, `onExit(reapShells)`), which does the same (it too leaves a signal
 * alone when another listener waits for it): this file is imported by cli/main.ts for every
 * command, `agenttool serve` among them, whose cold start is kept short. Importing signal-exit
 * took 36.9 ms against 25.8 ms for an empty module (fastest of 10 fresh `node` processes each, on
 * a shared 2-core machine at load average 15), for these 25 lines.
 *
 * @module
 */
import { reapShells } from './process-groups.js';

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

let installed = false;

/**
 * Installs the handlers, once per process. A signal that a command listens for (`agenttool run`
 * cancels its batch on the first Ctrl-C; `ui` and `serve` close) is left to it, and the command
 * reaps as it ends; a signal nobody listens for, including the second of a kind a command took
 * with `process.once`, reaps and exits with 128 + the signal's number, as the default action
 * would have.
 */
export function reapOnExit(): void {
  if (installed) return;
  installed = true;
  process.on('exit', () => void reapShells());
  for (const [signal, number] of Object.entries(SIGNALS)) {
    process.on(signal, () => {
      if (process.listenerCount(signal) > 1) return;
      reapShells();
      process.exit(128 + number);
    });
  }
}
