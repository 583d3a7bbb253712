/**
 * Scenario 8, scaling out behind nginx: one, two and three `agenttool serve --http --stateless`
 * instances behind nginx (the round-robin configuration of examples/nginx/stateless.conf), each
 * capped at `--max-calls 4` calls at once with the rest queued, serving `slow_count` calls that
 * wait 200 ms (one step). 36 clients call through nginx one call at a time each, for half of
 * `--http-seconds` per instance count. Reports calls per second for each count, and two and three
 * instances as a ratio to one. Needs nginx (Debian's package); without it the scenario says it
 * was skipped and reports nothing.
 *
 * Each instance can finish at most 4 calls per 200 ms (20 calls/s), whatever its CPU: the cap and
 * the wait, not the machine, bound one instance, so the ratio shows what adding instances adds
 * while the machine has CPU to spare for the traffic (see BENCHMARKS.md).
 *
 * @module
 */
import { Agent } from 'node:http';
import { HttpMcpClient } from '../http-load.js';
import { row, type Row } from '../report.js';
import type { Scale } from './scale-options.js';
import { serveCli, type ServingCli } from '../../test/support/cli.js';
import { exampleSite, findNginx, startNginx } from '../../test/support/nginx.js';

const CAP = 4;
const WAIT_MS = 200;
const CLIENTS = 36;

/** Calls per second through the balancer at `url` for `seconds`. */
async function drive(url: URL, seconds: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  // Stateless: no initialize needed, every call stands alone.
  const clients = Array.from({ length: CLIENTS }, () => new HttpMcpClient(url, agent));
  let calls = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < end) {
        await client.call('slow_count', { to: 1, step_ms: WAIT_MS });
        calls++;
      }
    }),
  );
  const rate = calls / ((performance.now() - start) / 1000);
  agent.destroy();
  return rate;
}

/** Runs scenario 8 and returns its rows (none without nginx). */
export async function scaleOutScenario(scale: Scale): Promise<Row[]> {
  const nginx = findNginx();
  if (nginx === undefined) {
    process.stderr.write('skipped: nginx is not installed (apt-get install nginx) ... ');
    return [];
  }
  const seconds = Math.max(1, scale.httpSeconds / 2);
  const instances: ServingCli[] = [0, 1, 2].map(() =>
    serveCli(['--stateless', '--max-calls', String(CAP), '--max-queued', '1000']),
  );
  try {
    const ports = (await Promise.all(instances.map((i) => i.url))).map((u) => Number(u.port));
    const rates: number[] = [];
    for (let n = 1; n <= 3; n++) {
      const balancer = await startNginx(nginx, (listen) =>
        exampleSite('stateless', listen, ports)
          .split('\n')
          // Only the first n instances in the upstream.
          .filter((line) => !ports.slice(n).some((p) => line.includes(`127.0.0.1:${p} `)))
          .join('\n'),
      );
      try {
        await drive(balancer.url, Math.min(1, seconds / 4));
        rates.push(await drive(balancer.url, seconds));
      } finally {
        await balancer.stop();
      }
    }
    const scenario = '8 scale-out (nginx)';
    const name = (n: number) =>
      `${n} instance${n > 1 ? 's' : ''} (cap ${CAP}, ${WAIT_MS} ms calls): throughput`;
    const one = { label: '1 instance', value: rates[0]!, unit: 'calls/s' as const };
    return [
      row({ scenario, name: name(1), ours: one }),
      ...[2, 3].map((n) =>
        row({
          scenario,
          name: name(n),
          ours: { label: `${n} instances`, value: rates[n - 1]!, unit: 'calls/s' },
          baseline: one,
          // Near-linear: n instances give at least 0.8 n times one.
          target: {
            on: 'ratio',
            max: 1 / (0.8 * n),
            text: `<= ${(1 / (0.8 * n)).toFixed(2)}x (>= ${(0.8 * n).toFixed(1)}x one)`,
          },
        }),
      ),
    ];
  } finally {
    for (const instance of instances) instance.child.kill('SIGKILL');
    await Promise.all(instances.map((i) => i.done));
  }
}
