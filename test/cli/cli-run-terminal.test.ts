/**
 * `agenttool run` in a real terminal (a pseudo-terminal made by util-linux `script`), read back
 * through a model of the screen: Ctrl-C's notice stays above the live rows and leaves no stale row,
 * and images print as a short placeholder instead of kilobytes of base64.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { reaped } from '../support/reaper.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliArgs, everythingServer, root } from '../support/cli.js';
import { Screen } from '../support/screen.js';
import { scaled } from '../support/time.js';

const dir = mkdtempSync(join(tmpdir(), 'agenttool-tty-'));
const call = (call_id: string, name: string, args: object) => ({
  type: 'function_call',
  call_id,
  name,
  arguments: JSON.stringify(args),
});
const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** A terminal session of `agenttool <args>`: what it printed, and a way to type into it. */
function inTerminal(args: string[]) {
  // `exec`: whatever shell `script` starts ($SHELL, or sh when unset) becomes the CLI, so Ctrl-C
  // reaches the CLI alone rather than also a shell that would die of it first.
  const line = ['exec', ...[process.execPath, ...cliArgs(), ...args].map(quote)].join(' ');
  const child = reaped(
    spawn('script', ['-qfec', line, '/dev/null'], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'ignore'],
    }),
  );
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | null>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no exit in 30 s:\n${output}`)), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      done(code);
    });
  });
  return {
    /** Resolves once the output contains `text` (bounded: 20 s, scaled). */
    async waitFor(text: string): Promise<void> {
      const deadline = Date.now() + scaled(20_000);
      while (!output.includes(text)) {
        if (Date.now() > deadline) throw new Error(`never printed ${text}:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    type: (keys: string) => void child.stdin!.write(keys),
    async end(): Promise<{ status: number | null; screen: string; raw: string }> {
      const status = await exited;
      child.stdin!.end();
      return { status, screen: new Screen().write(output).text(), raw: output };
    },
  };
}

describe('agenttool run in a terminal', function () {
  this.timeout(scaled(60_000));

  it('Ctrl-C: the notice stays above the rows, each row is drawn once, and they say cancelled', async () => {
    const turn = join(dir, 'cancel.json');
    writeFileSync(
      turn,
      JSON.stringify([
        call('long', 'bash', { command: 'echo started; sleep 30' }),
        call('count', 'slow_count', { to: 1000, step_ms: 50 }),
        call('quick', 'list_dir', { path: 'cli/tools' }),
      ]),
    );
    const term = inTerminal(['run', turn]);
    await term.waitFor('started');
    term.type('\x03');
    const { status, screen } = await term.end();
    expect(status).to.equal(1);
    const lines = screen.split('\n');
    const notice = 'cancelling: running calls are being stopped (Ctrl-C again to quit now)';
    expect(
      lines.filter((l) => l === notice),
      screen,
    ).to.have.length(1);
    const rows = [0, 1, 2].map((i) => lines.filter((l) => new RegExp(`#${i} `).test(l)));
    for (const row of rows) expect(row, screen).to.have.length(1);
    expect(rows[0]![0]).to.match(/⊘ #0 +bash +cancelled/);
    expect(rows[1]![0]).to.match(/⊘ #1 +slow_count +cancelled/);
    expect(rows[2]![0]).to.match(/✓ #2 +list_dir +done/);
    expect(lines.indexOf(notice)).to.be.below(lines.indexOf(rows[0]![0]!));
  });

  it("asks a tool's question above the live rows, field by field, and the typed answer is the tool's", async () => {
    const turn = join(dir, 'ask.json');
    writeFileSync(
      turn,
      JSON.stringify([
        call('colour', 'ask_user', { question: 'Which colour?', choices: ['red', 'blue'] }),
        call('name', 'ask_user', { question: 'Your name?', default: 'Ada' }),
        call('count', 'slow_count', { to: 3, step_ms: 10 }),
      ]),
    );
    const term = inTerminal(['run', turn, '--sequential']);
    await term.waitFor('1) red  2) blue');
    term.type('7\r');
    await term.waitFor('choose one of 1, 2');
    term.type('2\r');
    await term.waitFor('[Ada]');
    term.type('\r');
    const { status, screen } = await term.end();
    expect(status, screen).to.equal(0);
    const lines = screen.split('\n');
    const asked = lines.findIndex((l) => l === '? #0 ask_user asks: Which colour?');
    expect(asked, screen).to.be.at.least(0);
    expect(lines.indexOf('? #1 ask_user asks: Your name?')).to.be.above(asked);
    // Each row is drawn once, below the questions.
    const rows = [0, 1, 2].map((i) => lines.filter((l) => new RegExp(`#${i} +\\S+ +done`).test(l)));
    for (const row of rows) expect(row, screen).to.have.length(1);
    expect(lines.indexOf(rows[0]![0]!)).to.be.above(
      lines.indexOf('? #1 ask_user asks: Your name?'),
    );
    expect(screen).to.contain('"output": "the user answered: blue"');
    expect(screen).to.contain('"output": "the user answered: Ada"');
  });

  it('Ctrl-C while a question is open closes it, and the run ends cancelled', async () => {
    const turn = join(dir, 'ask-cancel.json');
    writeFileSync(
      turn,
      JSON.stringify([call('colour', 'ask_user', { question: 'Which colour?' })]),
    );
    const term = inTerminal(['run', turn]);
    await term.waitFor('answer*: ');
    term.type('\x03');
    const { status, screen } = await term.end();
    expect(status, screen).to.equal(1);
    expect(screen).to.contain('(question closed: the call ended)');
    expect(screen).to.match(/⊘ #0 +ask_user +cancelled/);
  });

  it('shows a page to visit with its full URL and host apart; Enter once back accepts, /decline declines', async () => {
    const turn = join(dir, 'visit.json');
    writeFileSync(
      turn,
      JSON.stringify([
        call('cal', 'visit', { url: 'https://calendar.example.com/connect?from=cli' }),
        call('spoof', 'visit', { url: 'http://xn--clendar-5za.example/connect' }),
      ]),
    );
    const fixture = join(root, 'test', 'fixtures', 'asking-server.mjs');
    const term = inTerminal([
      'run',
      turn,
      '--sequential',
      '--mcp',
      `${process.execPath} ${fixture}`,
    ]);
    await term.waitFor('Enter once you are back');
    term.type('\r');
    await term.waitFor('punycode');
    term.type('/decline\r');
    const { status, screen } = await term.end();
    expect(status, screen).to.equal(0);
    const lines = screen.split('\n');
    const asked = lines.indexOf(
      '? #0 visit asks you to visit a page: Connect your calendar on its own page.',
    );
    expect(asked, screen).to.be.at.least(0);
    expect(lines.slice(asked + 1, asked + 3)).to.deep.equal([
      '  https://calendar.example.com/connect?from=cli',
      '  host: calendar.example.com',
    ]);
    const spoof = lines.indexOf(
      '? #1 visit asks you to visit a page: Connect your calendar on its own page.',
    );
    expect(lines.slice(spoof + 1, spoof + 5)).to.deep.equal([
      '  http://xn--clendar-5za.example/connect',
      '  host: xn--clendar-5za.example',
      '  ! not encrypted (http:)',
      '  ! the host is spelt in punycode: it may imitate another',
    ]);
    expect(screen).to.contain('"output": "visit {\\"action\\":\\"accept\\"}"');
    expect(screen).to.contain('"output": "visit {\\"action\\":\\"decline\\"}"');
  });

  it('prints an image as its type and size, not its base64', async () => {
    const turn = join(dir, 'image.json');
    writeFileSync(turn, JSON.stringify([call('image', 'every__get-tiny-image', {})]));
    const term = inTerminal(['run', turn, '--mcp', everythingServer, '--prefix', 'every']);
    const { status, screen, raw } = await term.end();
    expect(status, screen).to.equal(0);
    expect(raw).not.to.contain('iVBORw0KGgo'); // a PNG's first bytes, in base64
    expect(screen).to.match(/"image_url": "\[image\/png, \d+\.\d KiB\]"/);
    expect(raw.length).to.be.below(4000);
  });
});
