/**
 * `agenttool ui` on the command line: its options, the server it starts (live and replaying a file
 * that `agenttool run --json` saved), the hint `agenttool run` prints, and `npm run build:ui`.
 */
import { expect } from 'chai';
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseArgs, type RunArgs } from '../../cli/args.js';
import { uiCommandLine } from '../../cli/run-command.js';
import { bundlePage } from '../../cli/ui/page-assets.js';
import { parseRun } from '../../cli/ui/replay-run.js';
import type { StreamRecord } from '../../cli/ui/run-records.js';
import { cliArgs, finished, root, runCli, startCli } from '../support/cli.js';
import { EventStreamReader } from '../support/ui.js';
import { scaled } from '../support/time.js';

const dir = mkdtempSync(join(tmpdir(), 'agenttool-ui-'));
const call = (call_id: string, name: string, args: object) => ({
  type: 'function_call',
  call_id,
  name,
  arguments: JSON.stringify(args),
});
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const turn = file(
  'turn.json',
  JSON.stringify([
    call('count', 'slow_count', { to: 3, step_ms: 30 }),
    call('shell', 'bash', { command: 'echo hi' }),
  ]),
);

/** The event stream of the page at `url`, with the token the page holds. */
async function pageEvents(url: URL): Promise<URL> {
  const page = await (await fetch(url)).text();
  const token = /<meta name="agenttool-token" content="([\w-]+)"/.exec(page)?.[1];
  if (token === undefined) throw new Error('the page holds no token');
  return new URL(`events?token=${token}`, url);
}

/** Resolves with the address `agenttool ui` prints on stderr. */
function address(child: ChildProcess): Promise<URL> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const found = /the web front is at (http:\/\/\S+) /.exec(stderr);
      if (found !== null) resolve(new URL(found[1]!));
    });
    child.once('exit', () => reject(new Error(`agenttool ui exited: ${stderr}`)));
  });
}

describe('agenttool ui: options', () => {
  it('takes a turn file, a port, --no-open, --approve and the batch options of run', () => {
    expect(parseArgs(['ui'])).to.deep.equal({
      command: 'ui',
      mcp: [],
      roots: [],
      open: true,
      approve: false,
      sequential: false,
    });
    expect(
      parseArgs([
        'ui',
        't.json',
        '--port',
        '8080',
        '--no-open',
        '--approve',
        '--max-parallel=2',
        '--sequential',
      ]),
    ).to.deep.equal({
      command: 'ui',
      input: 't.json',
      port: 8080,
      open: false,
      approve: true,
      mcp: [],
      roots: [],
      maxParallel: 2,
      sequential: true,
    });
    expect(parseArgs(['ui', '--replay', 'run.jsonl', '--mcp', 'srv --stdio', '--prefix', 'p']))
      .to.deep.include({ replay: 'run.jsonl' })
      .and.have.deep.property('mcp', [{ command: 'srv', args: ['--stdio'], prefix: 'p' }]);
  });

  const refused: [string[], string][] = [
    [['ui', 't.json', '--replay', 'r.jsonl'], 'give a turn file or --replay, not both'],
    [['ui', '--replay'], '--replay needs a file'],
    [['ui', '--port', '70000'], '--port takes a port number, got 70000'],
    [['ui', '--json'], '--json is an option of "agenttool run"'],
    [['run', '--approve'], '--approve is an option of "agenttool ui"'],
    [['run', '--port', '1'], '--port is an option of "agenttool ui"'],
    [['serve', '--sequential'], '--sequential is an option of "agenttool run" and "agenttool ui"'],
    [['ui', 'a.json', 'b.json'], 'give one turn file at most'],
  ];
  for (const [argv, message] of refused)
    it(`refuses ${argv.join(' ')}`, () => {
      expect(() => parseArgs(argv)).to.throw(message);
    });
});

describe('agenttool ui: the command', function () {
  this.timeout(scaled(30_000));
  const readers: EventStreamReader[] = [];
  afterEach(() => readers.splice(0).forEach((reader) => reader.close()));

  it('serves the turn on loopback, runs it when the page connects, and stops on SIGTERM', async () => {
    const child = startCli(['ui', turn, '--no-open']);
    const done = finished(child);
    const url = await address(child);
    expect(url.hostname).to.equal('127.0.0.1');
    expect(await (await fetch(url)).text()).to.contain('agenttool');
    const reader = new EventStreamReader(await pageEvents(url));
    readers.push(reader);
    const output = await reader.waitFor((r) => r.type === 'output');
    expect(reader.records[0]).to.deep.equal({ type: 'session', mode: 'live', title: turn });
    expect(output).to.have.nested.property('items[1].output', 'hi\n[exit code 0]');
    child.kill('SIGTERM');
    const { status, stderr } = await done;
    expect(status).to.equal(0);
    expect(stderr).to.match(/^agenttool: the web front is at http:\/\/127\.0\.0\.1:\d+\/ /);
  });

  it('replays, record for record, the file that agenttool run --json saved', async () => {
    const run = await runCli(['run', turn, '--json']);
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stderr).to.equal(''); // no hint on a pipe in --json mode
    const saved = file('run.jsonl', run.stdout);

    const child = startCli(['ui', '--replay', saved, '--no-open']);
    const done = finished(child);
    const reader = new EventStreamReader(await pageEvents(await address(child)));
    readers.push(reader);
    await reader.waitFor((r) => r.type === 'output');
    expect(reader.records[0]).to.deep.equal({ type: 'session', mode: 'replay', title: saved });
    expect(reader.records.slice(1)).to.deep.equal(parseRun(run.stdout, saved) as StreamRecord[]);
    child.kill('SIGTERM');
    expect((await done).status).to.equal(0);
  });

  it('exits 2 with one line on a file that is not a saved run', async () => {
    const bad = file('bad.jsonl', '{"type":"start","index":0,"at":0}\n');
    const { status, stdout, stderr } = await runCli(['ui', '--replay', bad, '--no-open']);
    expect(status).to.equal(2);
    expect(stdout).to.equal('');
    expect(stderr).to.equal(
      `agenttool: ${bad}: line 1: a saved run starts with its "batch" record\n`,
    );
  });
});

describe('agenttool run: pointing at the web front', function () {
  this.timeout(scaled(30_000));

  it('ends its log with the agenttool ui command line for the same turn', async () => {
    const { status, stderr } = await runCli(['run', turn]);
    expect(status).to.equal(0);
    // From the sources (a clone) through npm's script; from the built bin (installed) through npx.
    const fromSources = cliArgs().includes('tsx');
    expect(stderr.trimEnd().split('\n').at(-1)).to.equal(
      fromSources
        ? `see it live in a browser: npm run -s agenttool -- ui ${turn}`
        : `see it live in a browser: npx agenttool ui ${turn}`,
    );
  });

  it('writes a command line the shell and agenttool read back to the same servers', () => {
    const args = parseArgs([
      'run',
      'my turn.json',
      '--mcp',
      `node "server it's.js" --flag`,
      '--prefix',
      'srv',
      '--max-parallel',
      '3',
    ]) as RunArgs;
    const line = uiCommandLine(args);
    expect(line).to.match(
      /^agenttool ui 'my turn\.json' --mcp '.*' --prefix srv --max-parallel 3$/,
    );
    const words = execFileSync('bash', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' })
      .split('\0')
      .slice(0, -1);
    const back = parseArgs(words.slice(1));
    expect(back).to.deep.include({ command: 'ui', input: 'my turn.json', maxParallel: 3 });
    expect((back as { mcp: unknown }).mcp).to.deep.equal(args.mcp);
  });

  it('repeats the options that say where the calls run and where their spans go', () => {
    const args = parseArgs([
      'run',
      'turn.json',
      '--mcp-url',
      'https://example.com/mcp',
      '--auth',
      '--redis',
      'redis://127.0.0.1:6379',
      '--queue',
      'q',
      '--secret-file',
      'secret',
      '--otlp',
      'http://localhost:4318',
      '--timeout',
      '5000',
    ]) as RunArgs;
    const line = uiCommandLine(args);
    const words = execFileSync('bash', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' })
      .split('\0')
      .slice(0, -1);
    const back = parseArgs(words.slice(1));
    expect(back).to.deep.include({
      command: 'ui',
      input: 'turn.json',
      redis: 'redis://127.0.0.1:6379',
      queue: 'q',
      secretFile: 'secret',
      otlp: 'http://localhost:4318',
      timeout: 5000,
    });
    expect((back as { mcp: unknown }).mcp).to.deep.equal(args.mcp);
  });
});

describe('npm run build:ui', function () {
  this.timeout(scaled(60_000));

  it('writes the page and the bundled script the built package serves', async () => {
    const out = join(dir, 'ui');
    await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(root, 'cli/ui/build-page.ts'), out],
      { cwd: root },
    );
    for (const name of ['index.html', 'app.css', 'app.js'])
      expect(existsSync(join(out, name)), name).to.equal(true);
    expect(readFileSync(join(out, 'app.js'), 'utf8')).to.equal(await bundlePage());
    expect(readFileSync(join(out, 'index.html'), 'utf8')).to.equal(
      readFileSync(join(root, 'cli/ui/page/index.html'), 'utf8'),
    );
  });
});
