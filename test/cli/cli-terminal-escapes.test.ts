/**
 * Terminal escape sequences from an MCP server (an OSC 52 clipboard write, a title change, a line
 * erase, a C1 CSI, a bidi override) in tool names, progress and results never reach the terminal
 * raw: tool names with control characters, newlines or more than 128 characters are left out of
 * the list with one warning each, the live and plain views show control characters as escapes,
 * and JSON output stays JSON with the characters a terminal acts on escaped.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { connectMcp } from '../../adapters/mcp-client/index.js';
import { stdioTransport } from '../../adapters/mcp-stdio/index.js';
import { initialState, reduceBatch, type BatchAction } from '../../cli/call-state.js';
import { LiveView } from '../../cli/views/live-view.js';
import { PlainView } from '../../cli/views/plain-view.js';
import { jobsFromItems, ToolSet, type ExecutionEvent, type Tool } from '../../index.js';
import { spawn } from 'node:child_process';
import { reaped } from '../support/reaper.js';
import { cliArgs, finished, root, runCli } from '../support/cli.js';
import { lines } from '../support/lines.js';
import { scaled } from '../support/time.js';

const fixture = join(import.meta.dirname, '..', 'fixtures', 'hostile-terminal-server.mjs');
const server = `${process.execPath} ${fixture}`;
const OSC52 = '\x1b]52;c;cm0gLXJmIH4=\x07';
const HOSTILE = `${OSC52}\x1b]0;pwned\x07\x1b[2K\r\x1b[1A\x9b2J\u202e`;
/** What a terminal acts on: ESC, BEL, CR, backspace, the C1 controls (CSI, OSC), bidi controls. */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

const dir = mkdtempSync(join(tmpdir(), 'agenttool-escapes-'));
const turn = join(dir, 'turn.json');
writeFileSync(
  turn,
  JSON.stringify([
    { type: 'function_call', call_id: 'a', name: 'h__echo_escapes', arguments: '{}' },
  ]),
);

describe('terminal escape sequences from an MCP server', function () {
  this.timeout(scaled(30_000));

  it('leaves out tools whose names have control characters, newlines or over 128 characters, saying so once each', async () => {
    const errors: Error[] = [];
    const remote = await connectMcp(
      stdioTransport({ command: process.execPath, args: [fixture], stderr: 'ignore' }),
      { onerror: (err) => errors.push(err), onLog: () => undefined },
    );
    try {
      expect(remote.tools.map((t) => t.name)).to.deep.equal(['echo_escapes', 'n'.repeat(128)]);
      await remote.refresh();
      expect(remote.tools).to.have.length(2);
      const messages = errors.map((e) => e.message);
      expect(messages).to.have.length(4);
      for (const message of messages) {
        expect(message).to.match(/^mcp: tools\/list: left out tool "/);
        expect(message).not.to.match(ACTIVE);
      }
      expect(messages[0]).to.contain('\\u001b]52').and.contain('control or invisible characters');
      expect(messages[1]).to.contain('"two\\nlines"');
      expect(messages[2]).to.contain('\\u202e');
      expect(messages[3]).to.contain('longer than 128 characters (129)');
    } finally {
      await remote.close();
    }
  });

  it('agenttool run: the plain view, the warnings and the output items carry no raw escape sequence', async () => {
    const { status, stdout, stderr } = await runCli([
      'run',
      turn,
      '--mcp',
      server,
      '--prefix',
      'h',
    ]);
    expect(status, stderr).to.equal(0);
    expect(stderr).not.to.match(ACTIVE);
    expect(stderr.match(/agenttool: warning: --mcp .*left out tool/g)).to.have.length(4);
    // The name of 128 characters MCP allows is more than a model accepts: left out of the turn.
    expect(stderr).to.match(/agenttool: warning: left out tool "h__n+…": not a function name/);
    expect(stderr).to.contain('half\\x1b]52;c;cm0gLXJmIH4=\\x07');
    expect(stderr).to.contain('\\x9b2J\\u202eway');
    // The server's log line, sent before any call, and the name the server gave itself.
    expect(stderr).to.contain(
      'mcp hostile\\x1b]0;pwned\\x07terminal: warning: log\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b]0;pwned\\x07\\x1b[2K \\x1b[1A\\x9b2J\\u202eline\n',
    );
    expect(stdout).not.to.match(ACTIVE);
    expect(stdout).not.to.contain('\u2028');
    const items = JSON.parse(stdout) as { output: string }[];
    expect(items[0]!.output).to.equal(`done${HOSTILE}\nsecond line`);
  });

  it('agenttool run --json: every line is JSON holding the text as sent, with nothing raw', async () => {
    const { status, stdout } = await runCli([
      'run',
      turn,
      '--json',
      '--mcp',
      server,
      '--prefix',
      'h',
    ]);
    expect(status).to.equal(0);
    expect(stdout).not.to.match(ACTIVE);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const progress = lines.find((l) => l.type === 'event' && l.final === false) as {
      result: { details: { message: string } };
    };
    expect(progress.result.details.message).to.equal(`half${HOSTILE}way`);
    expect(lines.at(-1)).to.have.nested.property('items[0].output', `done${HOSTILE}\nsecond line`);
  });

  it('agenttool run --list: the definitions as JSON, with nothing raw', async () => {
    const { status, stdout } = await runCli(['run', '--list', '--mcp', server, '--prefix', 'h']);
    expect(status).to.equal(0);
    expect(stdout).not.to.match(ACTIVE);
    const listed = JSON.parse(stdout) as { name: string; description: string }[];
    expect(listed.find((t) => t.name === 'h__echo_escapes')?.description).to.equal(
      `prints ${HOSTILE}`,
    );
  });
});

describe("agenttool serve: a client's error text on stderr", function () {
  this.timeout(scaled(30_000));

  it('a client that fails a question with escape sequences: one line, "mcp server: " once, escaped', async () => {
    const child = reaped(spawn(process.execPath, [...cliArgs(), 'serve'], { cwd: root }));
    const out = lines(child.stdout!);
    const done = finished(child);
    const send = (message: object): void =>
      void child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'raw', version: '0' },
      },
    });
    await out.seen('{"result":');
    send({ method: 'notifications/initialized' });
    send({
      id: 2,
      method: 'tools/call',
      params: { name: 'ask_user', arguments: { question: 'Which?' } },
    });
    const asked = JSON.parse(await out.seen('{"method":"elicitation/create"')) as { id: number };
    send({ id: asked.id, error: { code: -32000, message: `denied${HOSTILE}` } });
    await out.seen('{"result":{"content"');
    child.stdin!.end();
    const { stderr } = await done;
    expect(stderr).not.to.match(ACTIVE);
    expect(stderr.split('\n').filter((l) => l.includes('elicitation'))).to.deep.equal([
      'mcp server: elicitation: denied\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b]0;pwned\\x07\\x1b[2K \\x1b[1A\\x9b2J\\u202e',
    ]);
  });
});

/** A stream that records what a view writes, as a terminal of 120 columns. */
function terminal(): Writable & { columns: number; text: string } {
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.text += chunk.toString();
      done();
    },
  }) as Writable & { columns: number; text: string };
  out.columns = 120;
  out.text = '';
  return out;
}

describe('the terminal views: control characters shown as escapes', () => {
  const hostile: Tool = {
    name: `evil${OSC52}`,
    description: '',
    parameters: { type: 'object' },
    execute: () => {
      throw new Error('not run');
    },
  };
  const jobs = jobsFromItems(
    [{ type: 'function_call', call_id: 'c', name: hostile.name, arguments: '{}' }],
    new ToolSet([hostile]),
  );
  const actions: BatchAction[] = [
    { type: 'start', index: 0, at: 0 },
    {
      type: 'event',
      at: 5,
      event: {
        index: 0,
        callId: 'c',
        final: false,
        result: { output: `half${HOSTILE}way`, details: { progress: 1, total: 2 } },
      } as ExecutionEvent,
    },
    {
      type: 'event',
      at: 9,
      event: { index: 0, callId: 'c', final: true, result: { output: `done${HOSTILE}` } },
    },
    { type: 'end', at: 9 },
  ];

  it('the plain view writes one line per event, with the escapes visible', () => {
    const out = terminal();
    const view = new PlainView(out);
    const state = initialState(jobs);
    for (const action of actions) view.update(reduceBatch(state, action), action);
    view.finish();
    expect(out.text).not.to.match(ACTIVE);
    expect(out.text.trimEnd().split('\n')).to.have.length(3);
    expect(out.text).to.contain('#0 evil\\x1b]52;c;cm0gLXJmIH4=\\x07 started');
    expect(out.text).to.contain('\\x1b[2K \\x1b[1A\\x9b2J\\u202eway');
  });

  it('the live view draws the rows with its own cursor moves only', () => {
    const out = terminal();
    const view = new LiveView(out as unknown as NodeJS.WriteStream);
    const state = initialState(jobs);
    for (const action of actions) view.update(reduceBatch(state, action));
    view.finish(state);
    // The view's own sequences: hide and show the cursor, move up, erase below.
    // eslint-disable-next-line no-control-regex
    const own = out.text.replace(/\x1b\[\?25[lh]|\x1b\[\d+A|\r\x1b\[0J/g, '');
    expect(own).not.to.match(ACTIVE);
    expect(own).to.contain('evil\\x1b]52;c;cm0g');
    expect(own).to.contain('done\\x1b]52;c;cm0gLXJmIH4=\\x07');
  });
});
