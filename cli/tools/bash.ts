/**
 * `bash`: runs a shell command in its own process group, streams its output lines as progress,
 * and kills the whole group when the call is cancelled. Calls share the `shell:session` resource,
 * so two of them in one batch run one after another in the model's order.
 */
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { tool } from '../tool-contract.js';
import type { Recordable } from '../../index.js';
import { forgetGroup, killGroup, trackGroup, watchGroup } from '../process-groups.js';

export { reapShells } from '../process-groups.js';

/** The handle a bash call records the moment its process starts: enough to reap it after a crash. */
export class ProcessGroup implements Recordable {
  constructor(readonly pgid: number) {}
  recordNS(): string {
    return 'shell:process-group';
  }
}

/** How long a cancelled command gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 500;

export const bash = tool({
  name: 'bash',
  description: 'Run a bash command and return its output and exit code.',
  parameters: z.object({
    command: z.string().describe('The command line to run'),
    cwd: z.string().optional().describe('Working directory (default: the current one)'),
  }),
  resource: 'shell:session',
  // A command may change the world: run again, it may do so twice.
  replay: 'unsafe',
  annotations: { title: 'Bash', destructiveHint: true, openWorldHint: true },
  async execute({ command, cwd }, context) {
    const child = spawn('bash', ['-c', command], {
      cwd,
      detached: true, // its own process group, so a cancel reaches everything it started
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const pid = child.pid;
    if (pid === undefined) {
      throw await new Promise<Error>((resolve) => child.once('error', resolve));
    }
    trackGroup(pid);
    // A process killed outright (a fleet worker, SIGKILL) runs no handler: its watchdog kills the
    // group instead.
    const unwatch = watchGroup(pid);
    const kill = (signal: NodeJS.Signals): void => killGroup(pid, signal);
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      kill('SIGTERM');
      killTimer = setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    context.signal.addEventListener('abort', onAbort, { once: true });
    await context.record(new ProcessGroup(pid));

    const output: string[] = [];
    const lines = (stream: NodeJS.ReadableStream): void => {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) {
          output.push(line);
          context.progress(line);
        }
      });
      stream.on('end', () => {
        if (partial !== '') {
          output.push(partial);
          context.progress(partial);
        }
      });
    };
    lines(child.stdout);
    lines(child.stderr);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
      (resolve, reject) => {
        child.once('error', reject);
        child.once('close', (c, s) => resolve([c, s]));
      },
    ).finally(unwatch);
    forgetGroup(pid);
    context.signal.removeEventListener('abort', onAbort);
    if (killTimer !== undefined) clearTimeout(killTimer);
    const status = signal !== null ? `killed by ${signal}` : `exit code ${code}`;
    return `${output.join('\n')}${output.length > 0 ? '\n' : ''}[${status}]`;
  },
});
