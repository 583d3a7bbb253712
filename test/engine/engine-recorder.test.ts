import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import type { Recordable, ToolRecord } from '../../lib/records.js';
import type { ToolCall } from '../../lib/contract.js';
import type { RecordError } from '../../lib/errors.js';
import { tool } from '../../lib/tool.js';
import {
  batchResults,
  executeBatch,
  type ExecuteOptions,
  type Job,
} from '../../operators/index.js';

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

/** A record of namespace `ns` whose value is `value`. */
function recordable(ns: string, value: unknown): Recordable {
  return { recordNS: () => ns, toJSON: () => value } as Recordable;
}

/**
 * A tool that records each of `records` in turn, and returns what `context.record` did with each:
 * `ok`, or the message it rejected with.
 */
function recording(records: readonly Recordable[]) {
  return tool({
    name: 'rec',
    description: 'Records',
    async execute(_args, context) {
      const outcomes: string[] = [];
      for (const record of records)
        outcomes.push(
          await context.record(record).then(
            () => 'ok',
            (err: Error) => `${(err as RecordError).code}: ${err.message}`,
          ),
        );
      return outcomes.join('\n');
    },
  });
}

describe('executeBatch: the caps on records', () => {
  async function run(records: readonly Recordable[], options: ExecuteOptions = {}) {
    const written: ToolRecord[] = [];
    const [settled] = await batchResults(
      [{ tool: recording(records), call: { id: 'r1', args: '' } }],
      { ...options, recorder: (record) => void written.push(record) },
    );
    expect(settled).to.have.property('result');
    const output = (settled as { result: { output: string } }).result.output;
    return { written, outcomes: output.split('\n') };
  }

  it('writes 1,000 records of a call by default, and refuses the next with one line', async () => {
    const many = Array.from({ length: 1_005 }, (_, i) => recordable('test:step', i));
    const { written, outcomes } = await run(many);
    expect(written).to.have.length(1_000);
    expect(written.at(-1)).to.deep.equal({ ns: 'test:step', data: '999' });
    expect(outcomes.slice(0, 1_000).every((o) => o === 'ok')).to.equal(true);
    expect(outcomes.slice(1_000)).to.deep.equal(
      Array(5).fill(
        "invalid_record: record: past the call's 1000 records (maxRecords), not written",
      ),
    );
  });

  it('counts per call, and takes maxRecords and maxRecordBytes as options', async () => {
    const three = Array.from({ length: 3 }, (_, i) => recordable('test:step', i));
    expect((await run(three, { maxRecords: 2 })).written).to.have.length(2);
    const jobs: Job[] = ['a', 'b'].map((id) => ({
      tool: recording(three),
      call: { id, args: '' },
    }));
    const written: string[] = [];
    await batchResults(jobs, { maxRecords: 2, recorder: (_r, call) => void written.push(call.id) });
    expect(written.sort()).to.deep.equal(['a', 'a', 'b', 'b']);
    // "test:step" and "0": 10 bytes each.
    expect((await run(three, { maxRecordBytes: 25 })).written).to.have.length(2);
    expect((await run(three, { maxRecords: Infinity })).written).to.have.length(3);
  });

  it('refuses a record past 1 MiB of records in the call, and writes a smaller one after it', async () => {
    const { written, outcomes } = await run([
      recordable('test:big', 'x'.repeat(8 << 20)),
      recordable('test:small', 'é'.repeat(10)),
    ]);
    expect(outcomes[0]).to.equal(
      "invalid_record: record test:big: 8388618 bytes, past the call's 1048576 bytes of records (maxRecordBytes), not written",
    );
    expect(outcomes[1]).to.equal('ok');
    expect(written).to.deep.equal([{ ns: 'test:small', data: `"${'é'.repeat(10)}"` }]);
  });

  it('refuses a namespace outside the grammar, shown escaped, and keeps the ones in use', async () => {
    const refused = [
      '__proto__',
      'constructor ',
      '\x1b]52;c;cm0=\x07',
      'Shell:Group',
      'a'.repeat(129),
      '',
    ];
    const { written, outcomes } = await run([
      ...refused.map((ns) => recordable(ns, 1)),
      ...['shell:process-group', 'fs:temp-dir', 'ops:deployment.v2', 'a', '0_x-y'].map((ns) =>
        recordable(ns, 1),
      ),
    ]);
    expect(written.map((r) => r.ns)).to.deep.equal([
      'shell:process-group',
      'fs:temp-dir',
      'ops:deployment.v2',
      'a',
      '0_x-y',
    ]);
    const rule = '1 to 128 of a-z 0-9 . _ : -, starting with a letter or a digit';
    expect(outcomes.slice(0, refused.length)).to.deep.equal([
      `invalid_record: record: invalid namespace "__proto__": ${rule}`,
      `invalid_record: record: invalid namespace "constructor ": ${rule}`,
      `invalid_record: record: invalid namespace "\\u001b]52;c;cm0=\\u0007": ${rule}`,
      `invalid_record: record: invalid namespace "Shell:Group": ${rule}`,
      `invalid_record: record: invalid namespace "${'a'.repeat(64)}"…: ${rule}`,
      'invalid_record: record: empty namespace',
    ]);
  });

  it('costs a refused record nothing: 200,000 records past the cap reach the recorder 1,000 times', async () => {
    const flood = tool({
      name: 'flood',
      description: 'Records 200,000 times',
      async execute(_args, context) {
        let refused = 0;
        for (let i = 0; i < 200_000; i++)
          await context.record(recordable('test:step', i)).catch(() => refused++);
        return String(refused);
      },
    });
    let calls = 0;
    const [settled] = await batchResults([{ tool: flood, call: { id: 'f', args: '' } }], {
      recorder: () => void calls++,
    });
    expect(calls).to.equal(1_000);
    expect(settled).to.deep.equal({ result: { output: '199000' } });
  });
});
