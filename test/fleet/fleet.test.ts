/**
 * The worker fleet on BullMQ (`queueTools`, `runWorker` from `agenttool/redis`): a batch whose
 * calls run on two workers gives what a local run gives, progress included, spread over both; a
 * call sent again is never run twice; unsubscribing cancels the call on the worker that runs it;
 * a call of a tool no worker has fails saying so. Needs Debian's redis-server (started here;
 * skipped with a line where it is missing).
 */
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import {
  jobIdOf,
  queueTools,
  runWorker,
  type FleetWorker,
  type QueuedTools,
} from '../../adapters/redis/index.js';
import { slowCount } from '../../cli/tools/slow-count.js';
import { executeBatch, tool, type Job, type Tool, type ToolRecord } from '../../index.js';
import { startScript } from '../support/cli.js';
import { finals, KILLED_CALL_ENDS, slowSurvivor } from '../support/fleet-kill.js';
import { skipWithoutRedis, startRedis, type TestRedis } from '../support/redis.js';
import { until as waitUntil } from '../support/until.js';
import { scaled } from '../support/time.js';

const runs = new Map<string, number>();
const signals = new Map<string, AbortSignal>();

/** The tools one worker runs: `whoami` says which worker ran it. */
function toolsOf(worker: string): Tool[] {
  return [
    slowCount,
    tool({
      name: 'whoami',
      description: 'Says which worker ran it, after a pause.',
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        return `${worker}:${n}`;
      },
    }),
    tool({
      name: 'counted',
      description: 'Counts its runs by label.',
      parameters: z.object({ label: z.string() }),
      execute: ({ label }) => {
        runs.set(label, (runs.get(label) ?? 0) + 1);
        return `ran ${label}`;
      },
    }),
    tool({
      name: 'ask_and_record',
      description: 'Records what it does, asks a name, then greets.',
      parameters: z.object({}),
      execute: async (_args, context) => {
        await context.record({ recordNS: () => 'demo:step', toJSON: () => ({ worker }) } as never);
        const answer = await context.elicit({
          message: 'Who are you?',
          schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        });
        return answer.action === 'accept'
          ? `Hello, ${String(answer.content.name)}!`
          : answer.action;
      },
    }),
    tool({
      name: 'counted_slow',
      description: 'Counts its runs by label, after a pause of `ms`.',
      parameters: z.object({ label: z.string(), ms: z.number() }),
      execute: async ({ label, ms }) => {
        runs.set(label, (runs.get(label) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, ms));
        return `ran ${label}`;
      },
    }),
    tool({
      name: 'hang',
      description: 'Waits until cancelled.',
      parameters: z.object({ label: z.string() }),
      execute: ({ label }, context) => {
        signals.set(label, context.signal);
        return new Promise<string>((_resolve, reject) =>
          context.signal.addEventListener('abort', () => reject(context.signal.reason as Error)),
        );
      },
    }),
  ];
}

describe('the worker fleet on BullMQ', function () {
  this.timeout(scaled(60_000));
  let redis: TestRedis;
  const workers: FleetWorker[] = [];
  let fleet: QueuedTools;
  const find = (name: string) => fleet.tools.find((t) => t.name === name)!;

  before(async function () {
    skipWithoutRedis(this, 'the worker fleet tests');
    redis = await startRedis();
    workers.push(await runWorker(toolsOf('w1'), { connection: redis.url }));
    workers.push(await runWorker(toolsOf('w2'), { connection: redis.url }));
    fleet = queueTools(toolsOf('dispatcher'), { connection: redis.url });
  });
  after(async () => {
    await fleet?.close();
    await Promise.all(workers.map((worker) => worker.close(true)));
    await redis?.stop();
  });

  it('keeps every definition of the tools it queues', () => {
    const local = toolsOf('x');
    expect(fleet.tools.map((t) => [t.name, t.description, t.parameters])).to.deep.equal(
      local.map((t) => [t.name, t.description, t.parameters]),
    );
  });

  it('runs a batch on the workers as a local run does: the same finals, progress, spread over both', async () => {
    const batch = (tools: readonly Tool[]): Job[] => {
      const by = (name: string) => tools.find((t) => t.name === name)!;
      return [
        { tool: by('slow_count'), call: { id: 'a', args: '{"to":3,"step_ms":20}' } },
        { tool: by('slow_count'), call: { id: 'b', args: '{"to":"x"}' } },
        ...[1, 2, 3, 4, 5, 6].map((n) => ({
          tool: by('whoami'),
          call: { id: `w${n}`, args: JSON.stringify({ n }) },
        })),
      ];
    };
    const remote = await lastValueFrom(executeBatch(batch(fleet.tools)).pipe(toArray()));
    const local = await lastValueFrom(executeBatch(batch(toolsOf('w'))).pipe(toArray()));
    const strip = (outputs: unknown[]) => outputs.map((o) => String(o).replace(/^w\d?:/, 'w:'));
    expect(strip(finals(remote))).to.deep.equal(strip(finals(local)));
    expect(
      remote.filter((e) => !e.final && e.callId === 'a').map((e) => e.result!.output),
    ).to.deep.equal(['counted 1 of 3', 'counted 2 of 3', 'counted 3 of 3']);
    const ranOn = new Set(
      finals(remote)
        .slice(2)
        .map((o) => String(o).split(':')[0]),
    );
    expect([...ranOn].sort()).to.deep.equal(['w1', 'w2']);
  });

  it('asks a call’s questions through the dispatching job’s elicitor, and records through its recorder', async () => {
    const asked: string[] = [];
    const records: ToolRecord[] = [];
    const events = await lastValueFrom(
      executeBatch([{ tool: find('ask_and_record'), call: { id: 'q1', args: '{}' } }], {
        elicitor: (request) => {
          asked.push(request.message);
          return Promise.resolve({ action: 'accept', content: { name: 'Ada' } });
        },
        recorder: (record) => void records.push(record),
      }).pipe(toArray()),
    );
    expect(finals(events)).to.deep.equal(['Hello, Ada!']);
    expect(asked).to.deep.equal(['Who are you?']);
    expect(records).to.have.length(1);
    expect(records[0]).to.deep.include({ ns: 'demo:step', remote: 'fleet:agenttool' });
    expect(JSON.parse(records[0]!.data))
      .to.have.property('worker')
      .that.matches(/^w[12]$/);
  });

  it('never runs a call sent again twice: its result is read back', async () => {
    const job = (): Job => ({
      tool: find('counted'),
      call: { id: 'c1', args: '{"label":"once"}', idempotencyKey: 'batch-7/c1' },
    });
    const first = await lastValueFrom(executeBatch([job()]).pipe(toArray()));
    const again = await lastValueFrom(executeBatch([job()]).pipe(toArray()));
    expect(finals(first)).to.deep.equal(['ran once']);
    expect(finals(again)).to.deep.equal(['ran once']);
    expect(runs.get('once')).to.equal(1);
  });

  it('runs calls of the same id in two batches as two jobs', async () => {
    const one = queueTools(toolsOf('d'), { connection: redis.url, batch: 'turn-1' });
    const two = queueTools(toolsOf('d'), { connection: redis.url, batch: 'turn-2' });
    try {
      for (const fleetOf of [one, two, one]) {
        const counted = fleetOf.tools.find((t) => t.name === 'counted')!;
        await lastValueFrom(
          executeBatch([{ tool: counted, call: { id: 'same', args: '{"label":"batches"}' } }]),
        );
      }
      // turn-1 twice (one job), turn-2 once.
      expect(runs.get('batches')).to.equal(2);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('cancels the call on the worker that runs it when the dispatcher unsubscribes', async () => {
    const subscription = executeBatch([
      { tool: find('hang'), call: { id: 'h1', args: '{"label":"cancel-me"}' } },
    ]).subscribe();
    const deadline = Date.now() + scaled(10_000);
    while (!signals.has('cancel-me') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(signals.get('cancel-me')?.aborted).to.equal(false);
    subscription.unsubscribe();
    while (signals.get('cancel-me')?.aborted !== true && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(signals.get('cancel-me')!.aborted).to.equal(true);
  });

  it('fails a call of a tool no worker has, saying so', async () => {
    const stranger = queueTools(
      [tool({ name: 'nobody_has', description: 'x', execute: () => 'x' })],
      { connection: redis.url },
    );
    try {
      const events = await lastValueFrom(
        executeBatch([{ tool: stranger.tools[0]!, call: { id: 'n1', args: '{}' } }]).pipe(
          toArray(),
        ),
      );
      expect(events.at(-1)!.error).to.deep.include({
        message: 'no tool "nobody_has" on this worker',
        code: 'no_tool',
      });
    } finally {
      await stranger.close();
    }
  });

  // A worker process starts and dies in its own time: up to 15 s, looked at every 20 ms.
  const until = (check: () => boolean, what: string) => waitUntil(check, what, 15_000, 20);

  for (const [replay, expected] of KILLED_CALL_ENDS)
    it(`after its worker is killed mid-call, ${replay === 'safe' ? 'a safe' : 'an unsafe'} call ${replay === 'safe' ? 'runs again on another worker' : 'fails unrun (not_replayed)'}`, async () => {
      const queue = `kill-${replay}`;
      const dying = startScript('test/support/fleet-worker.ts', [redis.url, queue]);
      await until(() => dying.said().includes('ready'), 'the worker’s start');
      const label = `killed-${replay}`;
      const { tool: survivorTool, ran } = slowSurvivor(replay);
      const dispatcher = queueTools([survivorTool], { connection: redis.url, queue });
      try {
        const done = lastValueFrom(
          executeBatch([
            { tool: dispatcher.tools[0]!, call: { id: 'k1', args: JSON.stringify({ label }) } },
          ]).pipe(toArray()),
        );
        await until(() => dying.said().includes(`started ${label}`), 'the call’s start');
        dying.child.kill('SIGKILL');
        await dying.exited;
        const survivor = await runWorker([survivorTool], {
          connection: redis.url,
          queue,
          lockDuration: 1_000,
          stalledInterval: 500,
        });
        workers.push(survivor);
        expect(finals(await done)).to.deep.equal([expected]);
        expect(ran).to.deep.equal(replay === 'safe' ? [label] : []);
      } finally {
        dying.child.kill('SIGKILL');
        await dispatcher.close();
      }
    });

  for (const replay of ['safe', 'unsafe'] as const)
    it(`hands ${replay === 'safe' ? 'a safe' : 'an unsafe'} call back when its worker is closed with force: ${replay === 'safe' ? 'another worker runs it' : 'it fails unrun (not_replayed)'}`, async () => {
      const queue = `hand-back-${replay}`;
      const ran: string[] = [];
      const slow = tool({
        name: 'slow_handed',
        description: 'x',
        parameters: z.object({ label: z.string() }),
        replay,
        execute: async ({ label }, context) => {
          ran.push(label);
          await new Promise((resolve, reject) => {
            const timer = setTimeout(resolve, 300);
            context.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              reject(context.signal.reason as Error);
            });
          });
          return `done ${label}`;
        },
      });
      // Short locks: a hand-back the machine is too busy to make in time is still recovered as a
      // stalled job within seconds, with the same outcome, rather than after BullMQ's minute; not
      // so short that a busy machine lets the second worker's lock lapse mid-call (a third run).
      const locks = { lockDuration: 5_000, stalledInterval: 2_000 };
      const first = await runWorker([slow], { connection: redis.url, queue, ...locks });
      const dispatcher = queueTools([slow], { connection: redis.url, queue });
      const call = { id: 'hb', args: '{"label":"handed"}' };
      try {
        const done = lastValueFrom(
          executeBatch([{ tool: dispatcher.tools[0]!, call }]).pipe(toArray()),
        );
        await until(() => ran.length === 1, 'the call’s start');
        await first.close(true);
        // Handed back and left there: the closing worker does not take it again (it would then
        // hold it unrun until its lock lapsed, and a third run could follow).
        const waiting = new Queue(queue, { connection: { host: '127.0.0.1', port: redis.port } });
        try {
          expect(await waiting.getJobState(jobIdOf(call))).to.equal('waiting');
        } finally {
          await waiting.close();
        }
        expect(ran).to.deep.equal(['handed']);
        workers.push(await runWorker([slow], { connection: redis.url, queue, ...locks }));
        expect(finals(await done)).to.deep.equal([
          replay === 'safe'
            ? 'done handed'
            : 'error: call "hb" was interrupted and not replayed: tool "slow_handed" is not safe to run twice',
        ]);
        expect(ran).to.deep.equal(replay === 'safe' ? ['handed', 'handed'] : ['handed']);
      } finally {
        await dispatcher.close();
      }
    });

  /** A tool that counts its runs in `ran`, then takes `ms` to answer. */
  const slowTool = (name: string, replay: 'safe' | 'unsafe', ran: string[]) =>
    tool({
      name,
      description: 'x',
      parameters: z.object({ label: z.string(), ms: z.number() }),
      replay,
      execute: async ({ label, ms }) => {
        ran.push(label);
        await new Promise((resolve) => setTimeout(resolve, ms));
        return `done ${label}`;
      },
    });

  it('sends a safe call again when Redis restarts empty mid-call, and fails an unsafe one unrun (not_replayed)', async () => {
    const own = await startRedis();
    let again: TestRedis | undefined;
    const ran: string[] = [];
    const local = [slowTool('lost_safe', 'safe', ran), slowTool('lost_unsafe', 'unsafe', ran)];
    const quiet = { connection: own.url, onError: () => undefined };
    const worker = await runWorker(local, { ...quiet, concurrency: 2 });
    const dispatcher = queueTools(local, quiet);
    try {
      const done = lastValueFrom(
        executeBatch(
          dispatcher.tools.map((t, i) => ({
            tool: t,
            call: { id: `r${i}`, args: JSON.stringify({ label: t.name, ms: 500 }) },
          })),
        ).pipe(toArray()),
      );
      await until(() => ran.length === 2, 'both calls’ start');
      // Redis dies with both jobs and comes back on the same port without them (no persistence).
      await own.kill();
      again = await startRedis(own.port);
      expect(finals(await done)).to.deep.equal([
        'done lost_safe',
        'error: call "r1" was interrupted and not replayed: its job was lost with Redis\'s data, and tool "lost_unsafe" is not safe to run twice',
      ]);
      expect(ran.sort()).to.deep.equal(['lost_safe', 'lost_safe', 'lost_unsafe']);
    } finally {
      await dispatcher.close();
      await worker.close(true);
      await again?.stop();
    }
  });

  it('closes a dispatcher and a worker whose Redis died, failing the calls still waiting', async () => {
    const own = await startRedis();
    const ran: string[] = [];
    const local = [slowTool('orphaned', 'safe', ran)];
    const quiet = { connection: own.url, onError: () => undefined };
    const worker = await runWorker(local, { ...quiet, concurrency: 2 });
    const dispatcher = queueTools(local, quiet);
    // Closing does not wait for a dead Redis (it used to, for ever).
    const closed = (what: Promise<void>) =>
      Promise.race([
        what.then(() => 'closed'),
        new Promise((resolve) => setTimeout(resolve, 10_000, 'still closing after 10 s')),
      ]);
    try {
      const stop = new AbortController();
      const done = lastValueFrom(
        executeBatch(
          ['o1', 'o2'].map((id) => ({
            tool: dispatcher.tools[0]!,
            call: { id, args: JSON.stringify({ label: id, ms: 60_000 }) },
            ...(id === 'o1' ? { signal: stop.signal } : {}),
          })),
        ).pipe(toArray()),
      );
      await until(() => ran.length === 2, 'the calls’ start');
      await own.kill();
      // One call is given up while Redis is away (its cancellation waits for Redis); the other
      // waits for Redis to come back.
      stop.abort(new Error('given up'));
      expect(await closed(dispatcher.close())).to.equal('closed');
      expect(finals(await done)).to.deep.equal([
        'error: given up',
        'error: fleet: queue "agenttool" closed',
      ]);
      expect(await closed(worker.close(true))).to.equal('closed');
    } finally {
      // Nothing left retrying a dead Redis, whatever failed above.
      await closed(Promise.all([dispatcher.close(), worker.close(true)]).then(() => undefined));
    }
  });

  it('lets a dispatcher restarted mid-batch pick the batch up from Redis: finished calls keep their results, none runs twice', async () => {
    const dispatcher = startScript('test/support/fleet-dispatcher.ts', [redis.url]);
    await until(() => dispatcher.said().includes('final d1'), 'the first call’s end');
    dispatcher.child.kill('SIGKILL');
    await dispatcher.exited;
    // A new dispatcher, the same jobs.
    const events = await lastValueFrom(
      executeBatch(
        [1, 2, 3, 4].map((n) => ({
          tool: find('counted_slow'),
          call: { id: `d${n}`, args: JSON.stringify({ label: `restart-${n}`, ms: n * 400 }) },
        })),
        { maxParallel: 4 },
      ).pipe(toArray()),
    );
    expect(finals(events)).to.deep.equal([1, 2, 3, 4].map((n) => `ran restart-${n}`));
    for (const n of [1, 2, 3, 4]) expect(runs.get(`restart-${n}`), `restart-${n}`).to.equal(1);
  });
});
