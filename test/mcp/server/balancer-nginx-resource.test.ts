/**
 * examples/nginx/by-resource.conf: three instances of examples/mcp-ledger-server.ts behind nginx
 * hashing the `Mcp-Param-Account` header that `connectMcp` sends for the tool's `x-mcp-header`
 * argument. Every call on one account reaches one instance, so its ledger there holds every entry
 * in the order the batch made them; round-robin (examples/nginx/stateless.conf) splits them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { reaped } from '../../support/reaper.js';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { connectMcp, httpTransport } from '../../../adapters/mcp-client/index.js';
import { executeBatch, type Tool } from '../../../index.js';
import { root } from '../../support/cli.js';
import {
  exampleSite,
  findNginx,
  freePort,
  startNginx,
  type Balancer,
} from '../../support/nginx.js';
import { scaled } from '../../support/time.js';

const require = createRequire(import.meta.url);
const nginx = findNginx();
const IDS = ['a', 'b', 'c'] as const;
const ACCOUNTS = 12;
const ENTRIES = 5;

interface Instance {
  readonly child: ChildProcess;
  readonly port: number;
  readonly done: Promise<void>;
}

/** One instance of the example server, resolved once it serves. */
async function startInstance(id: string): Promise<Instance> {
  const port = await freePort();
  const child = reaped(
    spawn(
      process.execPath,
      [
        '--import',
        require.resolve('tsx'),
        resolve(root, 'examples/mcp-ledger-server.ts'),
        '--http',
        String(port),
        '--instance',
        id,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    ),
  );
  const done = new Promise<void>((r) => child.once('exit', () => r()));
  let text = '';
  await new Promise<void>((serving, failed) => {
    child.stderr!.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('serving ledger_append')) serving();
    });
    void done.then(() => failed(new Error(`the ledger server exited: ${text}`)));
  });
  return { child, port, done };
}

/** What each call answered: the instance and the ledger so far, by account, in entry order. */
type Answers = Map<string, { instance: string; entries: string[] }[]>;

/** Appends ENTRIES entries to each of ACCOUNTS accounts, interleaved, 12 calls at once. */
async function appendAll(url: URL): Promise<Answers> {
  const remote = await connectMcp(httpTransport(url.href), {
    resources: { ledger_append: (args) => `account:${(args as { account: string }).account}` },
  });
  try {
    expect(remote.protocolVersion).to.equal('2026-07-28');
    const ledger = remote.tools.find((t) => t.name === 'ledger_append') as Tool;
    const jobs = Array.from({ length: ACCOUNTS * ENTRIES }, (_, i) => ({
      tool: ledger,
      call: {
        id: `c${i}`,
        args: JSON.stringify({
          account: `acct-${i % ACCOUNTS}`,
          entry: `e${Math.floor(i / ACCOUNTS)}`,
        }),
      },
    }));
    const events = await lastValueFrom(
      executeBatch(jobs, { maxParallel: ACCOUNTS }).pipe(toArray()),
    );
    const answers: Answers = new Map();
    for (const event of events.filter((e) => e.final).sort((x, y) => x.index - y.index)) {
      expect(event.error, event.error?.message).to.equal(undefined);
      const account = `acct-${event.index % ACCOUNTS}`;
      const list = answers.get(account) ?? [];
      answers.set(account, list);
      list.push(
        JSON.parse(String(event.result!.output)) as { instance: string; entries: string[] },
      );
    }
    return answers;
  } finally {
    await remote.close();
  }
}

describe('nginx routing on an x-mcp-header argument: three instances keeping state per account', function () {
  this.timeout(scaled(120_000));
  let instances: Instance[] = [];
  let balancer: Balancer | undefined;

  before(async function () {
    if (nginx === undefined) {
      process.stdout.write(
        '    SKIPPED: nginx is not installed (apt-get install nginx; .ci/run does): the load-balancer tests did not run\n',
      );
      this.skip();
    }
    instances = await Promise.all(IDS.map((id) => startInstance(id)));
  });

  afterEach(async () => {
    await balancer?.stop();
    balancer = undefined;
  });

  after(async () => {
    for (const instance of instances) instance.child.kill('SIGKILL');
    await Promise.all(instances.map((i) => i.done));
  });

  const start = async (mode: 'by-resource' | 'stateless'): Promise<Balancer> =>
    (balancer = await startNginx(nginx!, (listen) =>
      exampleSite(
        mode,
        listen,
        instances.map((i) => i.port),
      ),
    ));

  it('by-resource.conf: each account on one instance, its ledger in the order the batch made it; accounts spread', async () => {
    const { url } = await start('by-resource');
    const answers = await appendAll(url);
    const used = new Set<string>();
    for (const [account, list] of answers) {
      expect(new Set(list.map((a) => a.instance)).size, account).to.equal(1);
      used.add(list[0]!.instance);
      // Answer k saw entries e0..ek: nothing lost, nothing out of order.
      list.forEach((answer, k) => {
        const expected = Array.from({ length: k + 1 }, (_, j) => `e${j}`);
        expect(answer.entries.slice(-(k + 1)), account).to.deep.equal(expected);
      });
    }
    expect(used.size, [...used].join()).to.be.at.least(2);
  });

  it('stateless.conf (round-robin), the same batch: an account’s entries are split over instances', async () => {
    const { url } = await start('stateless');
    const answers = await appendAll(url);
    const split = [...answers.values()].filter(
      (list) => new Set(list.map((a) => a.instance)).size > 1,
    );
    expect(split.length).to.be.above(0);
  });
});
