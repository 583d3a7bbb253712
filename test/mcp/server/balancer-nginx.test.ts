import { expect } from 'chai';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  StreamableHTTPClientTransport,
  type FetchLike,
  type Transport,
} from '@modelcontextprotocol/client';
import { AnswerWatch } from '../../../adapters/mcp-client/answer-watch.js';
import { connectMcp, type McpRemote } from '../../../adapters/mcp-client/index.js';
import type { Tool } from '../../../index.js';
import { serveCli, type ServingCli } from '../../support/cli.js';
import { exampleSite, findNginx, startNginx, type Balancer } from '../../support/nginx.js';
import { runTool } from '../../support/run.js';
import { scaled } from '../../support/time.js';

const nginx = findNginx();
const CALLS = 2_000;
const WORKERS = 60;
/**
 * The calls done before one instance is killed: it is killed at the first call after that which
 * it has started answering, so a call is surely running on it.
 */
const KILL_AFTER = 700;
/**
 * A call that waits: one step of slow_count, long enough that the call instance b has begun
 * answering when it is killed (its answer's stream is open) is still running there when the
 * SIGKILL lands, on a busy machine too (a 10 ms step often ended first, and no call failed).
 */
const ARGS = { to: 1, step_ms: 100 };
const IDS = ['a', 'b', 'c'] as const;

interface Outcome {
  readonly start: number;
  readonly end: number;
  readonly finals: number;
  readonly error?: string;
  /** The session's instance, from its id (affine only). */
  readonly instance?: string;
}

/** A client session through the balancer, and the transport that knows its id. */
interface Slot {
  readonly remote: McpRemote;
  readonly transport: Transport;
}

/** What the clients saw of the upstreams, from the X-Upstream header nginx adds. */
interface Upstreams {
  /** The tools/call POSTs each upstream answered. */
  readonly counts: Map<string, number>;
  /** Told of each tools/call whose answer an upstream has begun (its SSE stream is open). */
  answering?: (upstream: string) => void;
}

function countingFetch(upstreams: Upstreams): FetchLike {
  const { counts } = upstreams;
  return async (url, init) => {
    const res = await fetch(url, init);
    if (
      init?.method === 'POST' &&
      typeof init.body === 'string' &&
      init.body.includes('"tools/call"')
    ) {
      const upstream = res.headers.get('x-upstream') ?? 'none';
      counts.set(upstream, (counts.get(upstream) ?? 0) + 1);
      upstreams.answering?.(upstream);
    }
    return res;
  };
}

async function open(url: URL, upstreams: Upstreams): Promise<Slot> {
  const watch = new AnswerWatch(countingFetch(upstreams));
  const transport = watch.wrap(new StreamableHTTPClientTransport(url, { fetch: watch.fetch }));
  // Sessions (what the affine configuration routes by) are MCP 2025-11-25's.
  const remote = await connectMcp(transport, { versionNegotiation: { mode: 'legacy' } });
  return { remote, transport };
}

function slowCount(slot: Slot): Tool {
  const found = slot.remote.tools.find((t) => t.name === 'slow_count');
  if (found === undefined) throw new Error('slow_count is not served');
  return found;
}

describe('agenttool serve --http behind nginx: three instances, one killed mid-batch', function () {
  this.timeout(scaled(120_000));
  let instances: ServingCli[] = [];
  let balancer: Balancer | undefined;
  /** The address nginx names instance b by. */
  let victim = '';
  const slots: Slot[] = [];

  before(function () {
    if (nginx === undefined) {
      process.stdout.write(
        '    SKIPPED: nginx is not installed (apt-get install nginx; .ci/run does): the load-balancer tests did not run\n',
      );
      this.skip();
    }
  });

  afterEach(async () => {
    await Promise.all(slots.splice(0).map((s) => s.remote.close().catch(() => undefined)));
    for (const instance of instances) instance.child.kill('SIGKILL');
    await Promise.all(instances.map((i) => i.done));
    instances = [];
    await balancer?.stop();
    balancer = undefined;
  });

  /** Three instances (a, b, c) and nginx in front, configured as examples/nginx/<mode>.conf. */
  async function start(mode: 'stateless' | 'affine'): Promise<Balancer> {
    instances = IDS.map((id) =>
      serveCli(mode === 'stateless' ? ['--stateless'] : ['--instance', id]),
    );
    const ports = (await Promise.all(instances.map((i) => i.url))).map((u) => Number(u.port));
    victim = `127.0.0.1:${ports[1]}`;
    balancer = await startNginx(nginx!, (listen) =>
      exampleSite(mode, listen, ports, ['add_header X-Upstream $upstream_addr always;']),
    );
    return balancer;
  }

  /**
   * Runs the batch with WORKERS calls at once, worker w on slot w % slots.length; kills instance b
   * once KILL_AFTER calls are done, at the first call b is answering then (so one surely fails).
   * `replace` is told of a failed call's slot (affine: reconnect).
   */
  async function batch(upstreams: Upstreams, replace?: (index: number, failed: Slot) => void) {
    const outcomes: (Outcome | undefined)[] = new Array(CALLS);
    let ended = 0;
    let next = 0;
    let duplicates = 0;
    let killedAt = Infinity;
    let exitedAt = Infinity;
    upstreams.answering = (upstream) => {
      if (ended < KILL_AFTER || killedAt !== Infinity || upstream !== victim) return;
      killedAt = performance.now();
      instances[1]!.child.kill('SIGKILL');
      void instances[1]!.done.then(() => (exitedAt = performance.now()));
    };
    const worker = async (w: number): Promise<void> => {
      while (next < CALLS) {
        const i = next++;
        const index = w % slots.length;
        const slot = slots[index]!;
        const instance = slot.transport.sessionId?.split('.')[0];
        const start = performance.now();
        const { events, error } = await runTool(slowCount(slot), ARGS);
        if (outcomes[i] !== undefined) duplicates++;
        outcomes[i] = {
          start,
          end: performance.now(),
          finals: events.filter((e) => e.final).length,
          ...(error === undefined ? {} : { error: (error as Error).message }),
          ...(instance === undefined ? {} : { instance }),
        };
        ended++;
        if (error !== undefined && slots[index] === slot) replace?.(index, slot);
      }
    };
    const stalls = monitorEventLoopDelay({ resolution: 10 });
    stalls.enable();
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    stalls.disable();
    upstreams.answering = undefined;
    expect(killedAt, `instance b (${victim}) answered no call after ${KILL_AFTER}`).to.be.below(
      Infinity,
    );
    // Three seconds (scaled) from the kill (a call left hanging would never end: every call is one 100 ms
    // step), plus the longest this process went without running at all (on a machine busy with
    // nginx, three instances and other work): what it cannot see, it cannot time.
    const within = scaled(3_000) + stalls.max / 1e6;
    return { outcomes: outcomes as Outcome[], duplicates, killedAt, exitedAt, within };
  }

  it('stateless, round-robin: spread over all three; the killed one’s calls fail at once, every later call succeeds', async () => {
    const { url } = await start('stateless');
    const upstreams: Upstreams = { counts: new Map() };
    const { counts } = upstreams;
    slots.push(await open(url, upstreams));
    const { outcomes, duplicates, killedAt, exitedAt, within } = await batch(upstreams);
    const log = balancer!.errorLog();

    // Every call ended exactly once: one final event, or one error and no final.
    expect(duplicates).to.equal(0);
    expect(outcomes.filter((o) => o === undefined)).to.have.length(0);
    for (const o of outcomes) expect(o.finals).to.equal(o.error === undefined ? 1 : 0);
    // Spread over all three instances.
    const seen = [...counts.keys()].filter((k) => k !== 'none');
    expect(seen.length, JSON.stringify([...counts])).to.be.at.least(3);
    // The calls that failed were running on the killed instance: they failed at once, clearly.
    const failed = outcomes.filter((o) => o.error !== undefined);
    expect(failed.length, log).to.be.above(0);
    for (const o of failed) {
      expect(o.error).to.match(/connection lost|HTTP 502/);
      expect(o.start).to.be.below(exitedAt);
      expect(o.end - killedAt).to.be.below(within);
    }
    // Every call that started once it was gone succeeded on the others.
    const later = outcomes.filter((o) => o.start > exitedAt);
    expect(later.length).to.be.above(CALLS / 4);
    expect(later.filter((o) => o.error !== undefined).map((o) => o.error)).to.deep.equal([]);
  });

  it('session-affine, routed by instance id: spread over all three; the killed one’s sessions fail cleanly and reconnect to the others', async () => {
    const { url } = await start('affine');
    const upstreams: Upstreams = { counts: new Map() };
    const { counts } = upstreams;
    // Six sessions, opened one after the other: least_conn spreads them over a, b and c.
    for (let i = 0; i < 6; i++) slots.push(await open(url, upstreams));
    const first = slots.map((s) => s.transport.sessionId!.split('.')[0]);
    expect(new Set(first)).to.deep.equal(new Set(IDS));
    let reconnected = 0;
    let lastReconnect = 0;
    const reconnecting = new Set<number>();
    const retired: Slot[] = [];
    const { outcomes, duplicates, killedAt, within } = await batch(upstreams, (index, failed) => {
      // The session is gone with its instance: open a new one, which lands on a live instance.
      if (reconnecting.has(index)) return;
      reconnecting.add(index);
      void open(url, upstreams).then((slot) => {
        slots[index] = slot;
        reconnecting.delete(index);
        reconnected++;
        lastReconnect = performance.now();
        // Closed after the batch: calls on it until now end with its failure, not a close.
        retired.push(failed);
      });
    });
    await Promise.all(retired.map((s) => s.remote.close().catch(() => undefined)));
    const log = balancer!.errorLog();
    expect(duplicates).to.equal(0);
    for (const o of outcomes) expect(o.finals).to.equal(o.error === undefined ? 1 : 0);
    expect([...counts.keys()].filter((k) => k !== 'none').length).to.be.at.least(3);
    // Only the killed instance's sessions failed, right away and clearly.
    const failed = outcomes.filter((o) => o.error !== undefined);
    expect(failed.length, log).to.be.above(0);
    for (const o of failed) {
      expect(o.instance, `${o.error}\n${log.slice(-3000)}`).to.equal('b');
      expect(o.error).to.match(/connection lost|HTTP 502/);
      // A call running when the instance died fails within seconds of it; one sent on the dead
      // session before it reconnected, within seconds of being sent.
      expect(o.end - Math.max(o.start, killedAt)).to.be.below(within);
    }
    // Its sessions reconnected, to the instances left, and every call after that succeeded.
    expect(reconnected).to.equal(first.filter((id) => id === 'b').length);
    expect(slots.map((s) => s.transport.sessionId!.split('.')[0])).not.to.include('b');
    const later = outcomes.filter((o) => o.start > lastReconnect);
    expect(later.length).to.be.above(CALLS / 4);
    expect(later.filter((o) => o.error !== undefined)).to.deep.equal([]);
  });
});
