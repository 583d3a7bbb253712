import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import type { Recordable, ToolRecord } from '../lib/records.js';
import type { ToolCall } from '../lib/contract.js';
import { tool } from '../lib/tool.js';
import { batchResults, executeBatch, type Job } from '../operators/index.js';

class ProcessGroup implements Recordable {
  constructor(readonly pgid: number) {}
  recordNS(): string {
    return 'shell:process-group';
  }
}

describe('executeBatch: the recorder', () => {
  it('reaches the tool mid-call: the record is written before the call ends', async () => {
    const log: string[] = [];
    const bash = tool({
      name: 'bash',
      description: 'Runs a command',
      async execute(_args, context) {
        log.push('started');
        await context.record(new ProcessGroup(4242));
        log.push('recorded');
        return 'ok';
      },
    });
    const written: [ToolRecord, ToolCall][] = [];
    const recorder = async (record: ToolRecord, call: ToolCall) => {
      log.push('writing');
      written.push([record, call]);
    };
    const jobs: Job[] = [{ tool: bash, call: { id: 'b1', args: '' } }];
    const events = await lastValueFrom(executeBatch(jobs, { recorder }).pipe(toArray()));
    log.push('final');
    expect(written).to.deep.equal([
      [
        { ns: 'shell:process-group', data: '{"pgid":4242}' },
        { id: 'b1', args: '', idempotencyKey: 'b1' },
      ],
    ]);
    expect(log).to.deep.equal(['started', 'writing', 'recorded', 'final']);
    expect(events.at(-1)?.result?.output).to.equal('ok');
  });

  it('hands the recorder error to the tool, which decides what the call does', async () => {
    const bash = tool({
      name: 'bash',
      description: 'Runs a command',
      async execute(_args, context) {
        try {
          await context.record(new ProcessGroup(1));
          return 'recorded';
        } catch (err) {
          return `not recorded: ${(err as Error).message}`;
        }
      },
    });
    const recorder = () => Promise.reject(new Error('disk full'));
    const [settled] = await batchResults([{ tool: bash, call: { id: 'b1', args: '' } }], {
      recorder,
    });
    expect(settled).to.deep.equal({ result: { output: 'not recorded: disk full' } });
  });

  it('lets a tool record unconditionally when no recorder is installed', async () => {
    const bash = tool({
      name: 'bash',
      description: 'Runs a command',
      async execute(_args, context) {
        await context.record(new ProcessGroup(1));
        return 'ran';
      },
    });
    const [settled] = await batchResults([{ tool: bash, call: { id: 'b1', args: '' } }]);
    expect(settled).to.deep.equal({ result: { output: 'ran' } });
  });
});
