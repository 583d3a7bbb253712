/**
 * JSONL: every ExecutionEvent as one line, with `at` (ms since the batch started), after a line
 * naming the jobs and with a line when each call starts, so that a saved run can be replayed.
 */
import type { Job } from '../../index.js';
import type { BatchAction } from '../call-state.js';
import type { BatchView } from './view.js';
import { terminalJson, visible } from './visible.js';

/** An error as JSON: its name, code and message (never its stack). */
export function errorJson(error: Error): { name: string; code?: string; message: string } {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string'
    ? { name: error.name, code, message: error.message }
    : { name: error.name, message: error.message };
}

export class JsonView implements BatchView {
  /**
   * Writes the JSON lines to `out`, and notices (which are not events) as plain lines to `log`.
   */
  constructor(
    private readonly out: NodeJS.WritableStream,
    jobs: readonly Job[],
    resources: readonly string[],
    private readonly log: NodeJS.WritableStream = process.stderr,
  ) {
    const described = jobs.map((job, index) => ({
      index,
      callId: job.call.id,
      name: job.tool.name,
      args: job.call.args,
      resource: resources[index],
    }));
    this.line({ type: 'batch', jobs: described });
  }

  update(_state: unknown, action: BatchAction): void {
    if (action.type === 'start') this.line({ type: 'start', index: action.index, at: action.at });
    else if (action.type === 'event') {
      const { error, ...event } = action.event;
      this.line({
        type: 'event',
        at: action.at,
        ...event,
        ...(error === undefined ? {} : { error: errorJson(error) }),
      });
    }
  }

  finish(): void {}

  pause(): void {}

  resume(): void {}

  notice(line: string): void {
    this.log.write(`${visible(line.replace(/[\r\n]+/g, ' '))}\n`);
  }

  private line(value: unknown): void {
    this.out.write(`${terminalJson(value)}\n`);
  }
}
