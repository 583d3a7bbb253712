/**
 * A resumed batch matches its journal's entries to a call by call id, tool name and arguments
 * hash (operators/resume-log.ts, docs/engine.md): a journal that holds another call under the
 * same id (ids repeat across batches written to one journal) gives the new call nothing of it.
 */
import { expect } from 'chai';
import { lastValueFrom, tap, toArray } from 'rxjs';
import { z } from 'zod';
import type { Tool } from '../../lib/contract.js';
import type { ToolRecord } from '../../lib/records.js';
import { registerSteps, STEP_NS } from '../../lib/steps.js';
import { tool } from '../../lib/tool.js';
import { executeBatch } from '../../operators/execute-batch.js';
import type { Job } from '../../operators/job.js';
import {
  endedCall,
  recordedCall,
  RESUME_MISMATCH_NS,
  startedCall,
  type EndedCall,
  type RecordedCall,
  type ResumeLog,
  type StartedCall,
} from '../../operators/resume-log.js';

registerSteps(); // as the Node entry does

/** A tool that downloads a day of logs and loads them, in two steps; `crashAt` throws in that step. */
function importer(name = 'import_logs', crashAt?: string) {
  const ran: string[] = [];
  const built = tool({
    name,
    description: 'Downloads a day of logs and loads them',
    parameters: z.object({ day: z.string() }),
    replay: 'safe',
    async execute({ day }, context) {
      const file = await context.step('download', () => {
        ran.push(`download ${day}`);
        if (crashAt === 'download') throw new Error('crash');
        return { rows: `rows of ${day}` };
      });
      return context.step('load', () => {
        ran.push(`load ${day}`);
        if (crashAt === 'load') throw new Error('crash');
        return file.rows;
      });
    },
  });
  return { tool: built as Tool, ran };
}

/** A journal written as docs/engine.md shows: starts, records and finals, each with its call's fingerprint. */
class Journal implements ResumeLog {
  readonly started: StartedCall[] = [];
  readonly recorded: RecordedCall[] = [];
  readonly ended: EndedCall[] = [];

  /** Runs `jobs`, resuming from what the journal holds, and writes everything down. */
  async run(jobs: Job[], resume: boolean): Promise<unknown[]> {
    const events = await lastValueFrom(
      executeBatch(jobs, {
        ...(resume
          ? {
              resume: {
                started: [...this.started],
                recorded: [...this.recorded],
                ended: [...this.ended],
              },
            }
          : {}),
        onStart: (job) => void this.started.push(startedCall(job)),
        recorder: (record: ToolRecord, call) => void this.recorded.push(recordedCall(record, call)),
      }).pipe(
        tap((event) => {
          const entry = endedCall(event, jobs[event.index]);
          if (entry !== undefined) this.ended.push(entry);
        }),
        toArray(),
      ),
    );
    return events.filter((e) => e.final).map((e) => e.error?.message ?? e.result?.output);
  }

  /** The namespaces and steps written for call `id`, in order. */
  written(id: string): string[] {
    return this.recorded
      .filter((entry) => entry.callId === id)
      .map(({ record }) =>
        record.ns === STEP_NS ? `step ${JSON.parse(record.data).step}` : record.ns,
      );
  }
}

const call = (t: Tool, day: string, id = 'c1'): Job => ({
  tool: t,
  call: { id, args: JSON.stringify({ day }) },
});

describe('resume: a call is matched by id, tool name and arguments hash', () => {
  it('a call with other arguments under a finished call’s id runs all its steps, and records the mismatch', async () => {
    const { tool: logs, ran } = importer();
    const journal = new Journal();
    expect(await journal.run([call(logs, '12-01')], false)).to.deep.equal(['rows of 12-01']);
    expect(await journal.run([call(logs, '12-02')], true)).to.deep.equal(['rows of 12-02']);
    expect(ran).to.deep.equal(['download 12-01', 'load 12-01', 'download 12-02', 'load 12-02']);
    // The fresh call's records: first the mismatch, naming the call it was taken for, then its steps.
    const mismatch = journal.recorded.find((entry) => entry.record.ns === RESUME_MISMATCH_NS)!;
    expect(JSON.parse(mismatch.record.data)).to.deep.equal({
      callId: 'c1',
      tool: 'import_logs',
      argsHash: startedCall(call(logs, '12-02')).argsHash,
      earlier: [{ tool: 'import_logs', argsHash: startedCall(call(logs, '12-01')).argsHash }],
    });
    expect(journal.written('c1')).to.deep.equal([
      'step download',
      'step load',
      RESUME_MISMATCH_NS,
      'step download',
      'step load',
    ]);
  });

  it('a call with the same arguments, written in another key order, reuses its finished steps', async () => {
    const crashing = importer('import_logs', 'load');
    const journal = new Journal();
    expect(await journal.run([call(crashing.tool, '12-01')], false)).to.deep.equal(['crash']);
    // The crash's final is a failure the journal keeps; as if the process had died instead:
    journal.ended.length = 0;
    const { tool: logs, ran } = importer();
    const respaced: Job = { tool: logs, call: { id: 'c1', args: '{ "day" : "12-01" }' } };
    expect(await journal.run([respaced], true)).to.deep.equal(['rows of 12-01']);
    expect(ran).to.deep.equal(['load 12-01']);
    expect(journal.written('c1')).to.deep.equal(['step download', 'step load']);
  });

  it('a journal holding both calls under one id gives each only its own entries', async () => {
    const journal = new Journal();
    const first = importer();
    await journal.run([call(first.tool, '12-01')], false);
    // 12-02 under the same id dies after its download.
    const crashing = importer('import_logs', 'load');
    await journal.run([call(crashing.tool, '12-02')], true);
    journal.ended.pop();
    const { tool: logs, ran } = importer();
    expect(await journal.run([call(logs, '12-02')], true)).to.deep.equal(['rows of 12-02']);
    expect(ran).to.deep.equal(['load 12-02']);
    // And 12-01 still keeps its own final without running.
    expect(await journal.run([call(logs, '12-01')], true)).to.deep.equal(['rows of 12-01']);
    expect(ran).to.deep.equal(['load 12-02']);
  });

  it('a call of another tool under the same id and arguments is a fresh call', async () => {
    const journal = new Journal();
    await journal.run([call(importer('import_logs').tool, '12-01')], false);
    const other = importer('import_metrics');
    expect(await journal.run([call(other.tool, '12-01')], true)).to.deep.equal(['rows of 12-01']);
    expect(other.ran).to.deep.equal(['download 12-01', 'load 12-01']);
    const mismatch = journal.recorded.find((entry) => entry.record.ns === RESUME_MISMATCH_NS)!;
    expect(JSON.parse(mismatch.record.data)).to.include({ tool: 'import_metrics' });
  });

  it('entries written without a fingerprint match by call id alone, as before', async () => {
    const { tool: logs, ran } = importer();
    const resume: ResumeLog = {
      started: [{ callId: 'c1' }],
      recorded: [
        {
          callId: 'c1',
          record: { ns: STEP_NS, data: '{"step":"download","value":{"rows":"kept"}}' },
        },
      ],
    };
    const events = await lastValueFrom(
      executeBatch([call(logs, '12-02')], { resume }).pipe(toArray()),
    );
    expect(events.at(-1)!.result?.output).to.equal('kept');
    expect(ran).to.deep.equal(['load 12-02']);
  });
});
