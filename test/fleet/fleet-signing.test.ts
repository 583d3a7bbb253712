/**
 * Signed fleets (`secret` of `queueTools` and `runWorker`, adapters/redis/fleet-signing.ts): calls
 * between holders of the secret run; a job written straight into the queue, or signed with another
 * secret, fails unrun on the worker; a forged end in the event stream fails its call on the
 * dispatcher; a short secret is refused; a worker without a secret says once what that means.
 * Needs Debian's redis-server (started here; skipped with a line where it is missing).
 */
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { jobIdOf, queueTools, runWorker, type FleetWorker } from '../../adapters/redis/index.js';
import { FleetSigner } from '../../adapters/redis/fleet-signing.js';
import { fleetSecret } from '../../cli/fleet-secret.js';
import { UsageError } from '../../cli/usage-error.js';
import { executeBatch, tool, type ExecutionEvent, type Tool } from '../../index.js';
import { skipWithoutRedis, startRedis, type TestRedis } from '../support/redis.js';
import { until } from '../support/until.js';
import { scaled } from '../support/time.js';

const SECRET = 'a'.repeat(32);
const ran: string[] = [];
const releases = new Map<string, () => void>();

const tools: Tool[] = [
  tool({
    name: 'note',
    description: 'Notes that it ran.',
    parameters: z.object({ label: z.string() }),
    execute: ({ label }) => {
      ran.push(label);
      return `ran ${label}`;
    },
  }),
  tool({
    name: 'hold',
    description: 'Waits until released.',
    parameters: z.object({ label: z.string() }),
    execute: ({ label }) =>
      new Promise<string>((resolve) => releases.set(label, () => resolve(`ran ${label}`))),
  }),
];

const finals = (events: ExecutionEvent[]) =>
  events
    .filter((e) => e.final)
    .map((e) => (e.error === undefined ? e.result!.output : `error: ${e.error.message}`));

describe('a fleet with a secret', function () {
  this.timeout(scaled(30_000));
  let redis: TestRedis;
  let worker: FleetWorker;
  const run = async (secret: string | undefined, label: string, toolName = 'note') => {
    const fleet = queueTools(tools, { connection: redis.url, secret, batchId: secret ?? 'none' });
    try {
      const events = await lastValueFrom(
        executeBatch([
          {
            tool: fleet.tools.find((t) => t.name === toolName)!,
            call: { id: label, args: JSON.stringify({ label }) },
          },
        ]).pipe(toArray()),
      );
      return finals(events)[0];
    } finally {
      await fleet.close();
    }
  };

  before(async function () {
    skipWithoutRedis(this, 'the fleet signing tests');
    redis = await startRedis();
    worker = await runWorker(tools, { connection: redis.url, secret: SECRET });
  });
  after(async () => {
    await worker?.close(true);
    await redis?.stop();
  });

  it('runs the calls of a dispatcher with the same secret', async () => {
    expect(await run(SECRET, 'signed')).to.equal('ran signed');
  });

  it('fails unrun a job written straight into the queue, or signed with another secret', async () => {
    const queue = new Queue('agenttool', { connection: { host: '127.0.0.1', port: redis.port } });
    try {
      const job = await queue.add('note', {
        tool: 'note',
        call: { id: 'raw', args: '{"label":"raw"}', idempotencyKey: 'raw' },
        batch: '',
      });
      let state = '';
      const look = () => void job.getState().then((now) => (state = now));
      await until(() => (look(), state === 'failed'), 'the raw job failing', 10_000, 50);
      expect((await queue.getJob(job.id!))!.failedReason).to.contain(
        `fleet: job ${job.id} is not signed with the fleet's secret: not run`,
      );
    } finally {
      await queue.close();
    }
    const other = await run('b'.repeat(32), 'other');
    // The worker's refusal is signed with its own secret, which this dispatcher does not hold.
    expect(other)
      .to.contain("failed with a reason not signed with the fleet's secret")
      .and.to.contain("is not signed with the fleet's secret: not run");
    const unsigned = await run(undefined, 'unsigned');
    expect(unsigned).to.equal(
      `error: fleet: job ${jobIdOf({ id: 'unsigned', args: '' }, 'none')} is not signed with the fleet's secret: not run`,
    );
    expect(ran).to.not.include.members(['raw', 'other', 'unsigned']);
  });

  it('fails a call whose end in the event stream is forged, where the worker’s own end would do', async () => {
    const raw = new Redis(redis.url);
    const fleet = queueTools(tools, { connection: redis.url, secret: SECRET, batchId: 'forge' });
    const hold = fleet.tools.find((t) => t.name === 'hold')!;
    try {
      const done = lastValueFrom(
        executeBatch([{ tool: hold, call: { id: 'f1', args: '{"label":"f1"}' } }]).pipe(toArray()),
      );
      await until(() => releases.has('f1'), 'the call running');
      const id = jobIdOf({ id: 'f1', args: '' }, 'forge');
      const forged = JSON.stringify({ output: 'forged', sig: 'AAAA' });
      await raw.xadd(
        'bull:agenttool:events',
        '*',
        'event',
        'completed',
        'jobId',
        id,
        'returnvalue',
        forged,
      );
      expect(finals(await done)).to.deep.equal([
        `error: fleet: job ${id}: its result is not signed with the fleet's secret`,
      ]);
    } finally {
      releases.get('f1')?.();
      raw.disconnect();
      await fleet.close();
    }
  });

  it('refuses a secret shorter than 32 bytes, saying so', async () => {
    const short = 'too short';
    expect(() => new FleetSigner(short)).to.throw(
      TypeError,
      'the secret is 9 bytes; it must be at least 32',
    );
    expect(() => queueTools(tools, { connection: redis.url, secret: short })).to.throw(
      TypeError,
      'at least 32',
    );
    let error: unknown;
    await runWorker(tools, { connection: redis.url, secret: short }).catch((err) => (error = err));
    expect(error).to.be.instanceOf(TypeError);
  });

  it('says once, on start, what a worker without a secret runs', async () => {
    const told: string[] = [];
    const open = await runWorker(tools, {
      connection: redis.url,
      queue: 'unsigned',
      onWarning: (message) => told.push(message),
    });
    await open.close();
    expect(told).to.have.length(1);
    expect(told[0]).to.contain('it runs any job written to its queue');
  });
});

describe('the command line’s fleet secret (--secret-file, AGENTTOOL_FLEET_SECRET)', () => {
  const saved = process.env.AGENTTOOL_FLEET_SECRET;
  afterEach(() => {
    if (saved === undefined) delete process.env.AGENTTOOL_FLEET_SECRET;
    else process.env.AGENTTOOL_FLEET_SECRET = saved;
  });

  it('reads the file, its line end dropped, before the variable; none without either', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'agenttool-secret-')), 'fleet.key');
    writeFileSync(file, `${'f'.repeat(32)}\n`);
    process.env.AGENTTOOL_FLEET_SECRET = 'v'.repeat(32);
    expect(await fleetSecret(file)).to.equal('f'.repeat(32));
    expect(await fleetSecret(undefined)).to.equal('v'.repeat(32));
    delete process.env.AGENTTOOL_FLEET_SECRET;
    expect(await fleetSecret(undefined)).to.equal(undefined);
  });

  it('refuses a short secret and a file it cannot read, as usage errors', async () => {
    process.env.AGENTTOOL_FLEET_SECRET = 'short';
    let error: unknown;
    await fleetSecret(undefined).catch((err) => (error = err));
    expect(error).to.be.instanceOf(UsageError);
    expect((error as Error).message).to.equal(
      'the fleet secret in AGENTTOOL_FLEET_SECRET is 5 bytes; it must be at least 32 (openssl rand -hex 32 makes one)',
    );
    await fleetSecret('/nonexistent/fleet.key').catch((err) => (error = err));
    expect((error as Error).message).to.equal(
      '--secret-file: cannot read /nonexistent/fleet.key: ENOENT',
    );
  });
});
