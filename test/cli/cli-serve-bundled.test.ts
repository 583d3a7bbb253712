/**
 * `agenttool serve` on stdio without `--mcp` (cli/serve-bundled.ts): it answers `initialize`
 * before the engine is loaded, and from then on answers exactly as the library's serveStdio of the
 * same tools does, in both eras of MCP, including requests read just before stdin ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { cliArgs, finished, root } from '../support/cli.js';
import { lines } from '../support/lines.js';
import { initializeRequest } from '../support/mcp-messages.js';
import { ENVELOPE } from '../support/modern.js';
import { reaped } from '../support/reaper.js';
import { scaled } from '../support/time.js';

type Message = Record<string, unknown>;

const initialized: Message = { jsonrpc: '2.0', method: 'notifications/initialized' };
const request = (id: number, method: string, params: Message = {}): Message => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});
const readPackage = { name: 'read_file', arguments: { path: 'package.json' } };

/** A 2025-11-25 session: opened, listed, called (a tool, an unknown tool, bad arguments). */
const LEGACY: Message[] = [
  initializeRequest,
  initialized,
  request(1, 'tools/list'),
  request(2, 'tools/call', readPackage),
  request(3, 'tools/call', { name: 'no_such_tool', arguments: {} }),
  request(4, 'tools/call', { name: 'read_file', arguments: { path: 7 } }),
];

/** The same in 2026-07-28: no initialize, the envelope on every request. */
const MODERN: Message[] = [
  request(0, 'server/discover', { _meta: ENVELOPE }),
  request(1, 'tools/list', { _meta: ENVELOPE }),
  request(2, 'tools/call', { ...readPackage, _meta: ENVELOPE }),
  request(3, 'tools/call', { name: 'no_such_tool', arguments: {}, _meta: ENVELOPE }),
];

/**
 * Writes `messages` to a fresh process of `args`; ends its stdin at once (`endAtOnce`) or once
 * every request is answered. Its answers, by id.
 */
async function answersOf(
  args: string[],
  messages: readonly Message[],
  endAtOnce: boolean,
): Promise<Message[]> {
  const child = reaped(spawn(process.execPath, args, { cwd: root, stdio: 'pipe' }));
  const done = finished(child);
  const asked = messages.filter((m) => m.id !== undefined).length;
  child.stdin.write(messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
  if (endAtOnce) child.stdin.end();
  else {
    let read = '';
    child.stdout.on('data', (chunk: Buffer) => {
      read += chunk.toString();
      if (read.split('\n').length > asked) child.stdin.end();
    });
  }
  const { status, stdout, stderr } = await done;
  expect(status, stderr).to.equal(0);
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Message)
    .sort((a, b) => Number(a.id) - Number(b.id));
}

const library = ['--import', 'tsx', resolve(root, 'test/fixtures/serve-bundled-library.ts')];

describe('agenttool serve on stdio (the bundled tools)', function () {
  this.timeout(scaled(30_000));

  for (const [era, messages] of [
    ['2025-11-25', LEGACY],
    ['2026-07-28', MODERN],
  ] as const)
    it(`answers a ${era} session as the library's serveStdio of the same tools`, async () => {
      const [ours, theirs] = await Promise.all([
        answersOf([...cliArgs(), 'serve'], messages, false),
        answersOf(library, messages, false),
      ]);
      expect(ours.map((m) => m.id)).to.deep.equal(
        messages.flatMap((m) => (m.id === undefined ? [] : [m.id])),
      );
      expect(ours).to.deep.equal(theirs);
      expect(JSON.stringify(ours[1])).to.include('"name":"read_file"');
      expect(JSON.stringify(ours[2])).to.include('agenttool');
    });

  it('answers the requests read before stdin ended, though the engine was still loading', async () => {
    // No tool runs: a running call is cancelled when stdin ends (the client went away).
    const messages = LEGACY.filter((m) => m !== LEGACY[3]);
    const [ours, theirs] = await Promise.all([
      answersOf([...cliArgs(), 'serve'], messages, true),
      answersOf(library, messages, true),
    ]);
    expect(ours.map((m) => m.id)).to.deep.equal([0, 1, 3, 4]);
    expect(ours).to.deep.equal(theirs);
  });

  describe('what it loads', () => {
    let dir: string;
    let child: ChildProcess | undefined;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'agenttool-imports-'))));
    afterEach(() => {
      child?.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });

    it('answers initialize without rxjs or the call router, and loads them for tools/list', async () => {
      const file = join(dir, 'imports.txt');
      writeFileSync(file, '');
      const running = reaped(
        spawn(
          process.execPath,
          ['--import', resolve(root, 'test/fixtures/record-imports.mjs'), ...cliArgs(), 'serve'],
          { cwd: root, stdio: 'pipe', env: { ...process.env, AGENTTOOL_IMPORTS_FILE: file } },
        ),
      );
      child = running;
      const out = lines(running.stdout);
      const engine = (): string[] =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((url) => /\/rxjs\/|\/call-router\.[jt]s$/.test(url));
      running.stdin.write(`${JSON.stringify(initializeRequest)}\n`);
      await out.seen('{"result":{"protocolVersion"');
      expect(engine()).to.deep.equal([]);
      running.stdin.write(`${JSON.stringify(request(1, 'tools/list'))}\n`);
      await out.seen('{"result":{"tools"');
      expect(engine().some((url) => url.includes('/rxjs/'))).to.equal(true);
      expect(engine().some((url) => /call-router\.[jt]s$/.test(url))).to.equal(true);
      running.stdin.end();
      expect((await finished(running)).status).to.equal(0);
    });
  });
});
