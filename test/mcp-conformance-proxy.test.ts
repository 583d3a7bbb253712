/**
 * The official conformance suites through the proxy: both lines (`@modelcontextprotocol/conformance`
 * 0.1.16, and 0.2.0-alpha.12 with MCP 2026-07-28 and tasks) run against the project's own
 * conformance target (test/conformance/everything-server.ts) directly, and against `agenttool
 * serve --mcp-url <target>`, with and without `--tasks`: the same scenarios pass through the
 * proxy as directly, but those listed in EXCLUDED, each with its reason. One target serves all
 * three; each run is one invocation of the suite (`--suite all`), the three at once. Needs Node 22
 * (test/support/node22): skipped with a line where it is missing. docs/mcp.md, "Conformance".
 */
import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpHttpServer } from '../adapters/mcp-server/index.js';
import { serveConformance } from './conformance/everything-server.js';
import { serveCli, type ServingCli } from './support/cli.js';
import { all, conformanceOf, node22, type Run } from './support/conformance.js';
import { passed } from './support/conformance-next.js';
import { scaled } from './support/time.js';

const stable = conformanceOf('@modelcontextprotocol/conformance');
const next = conformanceOf('conformance-next');
type Suite = typeof stable;

/** Why a scenario's score through the proxy is not compared with the target's. */
const LOGGING =
  'the proxy declares logging and answers logging/setLevel, since it passes its upstream’s log ' +
  'messages on (createMcpServer); the target serves local tools and declares no logging';
const NO_TASKS =
  'without --tasks the proxy keeps no tasks, so it serves none and declares no tasks extension';

/** The scenarios left out of the comparison, by proxy, each with its reason. */
const EXCLUDED: Record<'plain' | 'tasks', (scenario: string) => string | undefined> = {
  plain: (s) =>
    s === 'logging-set-level' ? LOGGING : s.startsWith('tasks-') ? NO_TASKS : undefined,
  tasks: (s) => (s === 'logging-set-level' ? LOGGING : undefined),
};

/** Node 22, or the test skipped with a line saying why. */
function node22OrSkip(context: { skip(): void }): string {
  try {
    return node22();
  } catch (err) {
    process.stdout.write(`    SKIPPED: ${(err as Error).message}\n`);
    context.skip();
    throw err;
  }
}

/** Each scenario of a run of the whole suite, and whether it passed (its summary's lines). */
function scores(run: Run): Map<string, boolean> {
  const summary = run.output.slice(run.output.lastIndexOf('=== SUMMARY ==='));
  const found = new Map<string, boolean>();
  for (const [, mark, name] of summary.matchAll(/^([✓✗]) (\S+): \d+ passed, \d+ failed$/gm))
    found.set(name!, mark === '✓');
  if (found.size === 0)
    throw new Error(`no summary in the suite's output:\n${run.output.slice(-3000)}`);
  return found;
}

/** The whole suite against `url`, in one invocation. */
async function wholeSuite(suite: Suite, node: string, url: string, cwd: string) {
  return scores(await suite(node, ['server', '--url', url, '--suite', 'all'], cwd));
}

/** `scenarios` against `url`, one invocation each, a few at a time. */
async function scenariosOf(
  suite: Suite,
  node: string,
  url: string,
  cwd: string,
  scenarios: string[],
): Promise<Map<string, boolean>> {
  const runs = await all(scenarios, (s) =>
    suite(node, ['server', '--url', url, '--scenario', s], cwd),
  );
  return new Map([...runs].map(([name, run]) => [name, passed(run)]));
}

/**
 * Where the proxy's score differs from the target's: each scenario (but the excluded) that passes
 * on one and not the other, saying which.
 */
function differences(
  direct: Map<string, boolean>,
  proxied: Map<string, boolean>,
  excluded: (scenario: string) => string | undefined,
): string[] {
  const names = new Set([...direct.keys()].filter((name) => excluded(name) === undefined));
  return [...names]
    .filter((name) => direct.get(name) !== proxied.get(name))
    .map(
      (name) =>
        `${name}: ${direct.get(name) ? 'passes' : 'fails'} directly, ${proxied.get(name) ? 'passes' : 'fails'} through the proxy`,
    );
}

describe('MCP conformance suites through agenttool serve --mcp-url: the target’s own score', function () {
  this.timeout(scaled(300_000));
  const cwd = mkdtempSync(join(tmpdir(), 'agenttool-conformance-proxy-'));
  let node: string;
  let target: McpHttpServer | undefined;
  let plain: ServingCli | undefined;
  let tasking: ServingCli | undefined;
  let urls: { direct: string; plain: string; tasks: string };

  before(async function () {
    node = node22OrSkip(this);
    target = await serveConformance();
    plain = serveCli(['--mcp-url', target.url.href]);
    tasking = serveCli(['--mcp-url', target.url.href, '--tasks']);
    const [viaPlain, viaTasks] = await Promise.all([plain.url, tasking.url]);
    urls = { direct: target.url.href, plain: viaPlain.href, tasks: viaTasks.href };
  });
  after(async () => {
    for (const served of [plain, tasking]) {
      served?.child.kill();
      await served?.done;
    }
    await target?.close();
  });

  it('next line (MCP 2026-07-28, tasks): the same scenarios pass, with --tasks and without', async () => {
    const [direct, viaTasks] = await Promise.all([
      wholeSuite(next, node, urls.direct, cwd),
      wholeSuite(next, node, urls.tasks, cwd),
    ]);
    // Without --tasks, a task tool's call runs for as long as the tool (a minute): its
    // scenarios are left out, and the others run one by one.
    const compared = [...direct.keys()].filter((s) => EXCLUDED.plain(s) === undefined);
    const viaPlain = await scenariosOf(next, node, urls.plain, cwd, compared);
    expect([...direct.values()].filter(Boolean).length).to.be.greaterThan(40);
    expect(differences(direct, viaTasks, EXCLUDED.tasks)).to.deep.equal([]);
    expect(differences(direct, viaPlain, EXCLUDED.plain)).to.deep.equal([]);
  });

  it('stable line: the same scenarios pass, with --tasks and without', async () => {
    const [direct, viaPlain, viaTasks] = await Promise.all(
      [urls.direct, urls.plain, urls.tasks].map((url) => wholeSuite(stable, node, url, cwd)),
    );
    expect([...direct.values()].filter(Boolean).length).to.be.greaterThan(15);
    expect(differences(direct, viaPlain, EXCLUDED.plain)).to.deep.equal([]);
    expect(differences(direct, viaTasks, EXCLUDED.tasks)).to.deep.equal([]);
  });
});
