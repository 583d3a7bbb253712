import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { everythingServer, finished, runCli, startCli } from '../support/cli.js';
import { scaled } from '../support/time.js';

const dir = mkdtempSync(join(tmpdir(), 'agenttool-cli-'));
const call = (call_id: string, name: string, args: object) => ({
  type: 'function_call',
  call_id,
  name,
  arguments: JSON.stringify(args),
});
function turnFile(name: string, items: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof items === 'string' ? items : JSON.stringify(items));
  return path;
}
const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('agenttool run', function () {
  this.timeout(scaled(30_000));

  it('prints the function_call_output items in model order and exits 0 when every call succeeded', async () => {
    const file = turnFile('ok.json', {
      output: [
        { type: 'message', role: 'assistant', content: [] },
        call('a', 'slow_count', { to: 3, step_ms: 60 }),
        call('b', 'bash', { command: 'echo one' }),
        call('c', 'list_dir', { path: 'cli/tools' }),
      ],
    });
    const { status, stdout, stderr } = await runCli(['run', file]);
    expect(status, stderr).to.equal(0);
    const items = JSON.parse(stdout);
    expect(items.map((i: { call_id: string }) => i.call_id)).to.deep.equal(['a', 'b', 'c']);
    expect(items[0]).to.deep.equal({
      type: 'function_call_output',
      call_id: 'a',
      output: 'counted to 3',
    });
    expect(items[1].output).to.equal('one\n[exit code 0]');
    expect(items[2].output).to.include('bash.ts');
    // Not a terminal: plain lines, one when each call starts and ends, progress between.
    expect(stderr).to.match(/#0 slow_count started/);
    expect(stderr).to.match(/#0 slow_count \[[█░]+\]\s+33% counted 1 of 3/);
    expect(stderr).to.match(/#1 bash done in [\d.]+s: one/);
  });

  it('exits 1 when a call failed, and the output says why, with "Error: " once', async () => {
    const file = turnFile('fail.json', [
      call('ok', 'list_dir', { path: '.' }),
      call('missing', 'read_file', { path: 'no/such/file' }),
      call('bad', 'slow_count', { to: 'ten' }),
      call('unknown', 'no_such_tool', {}),
    ]);
    const { status, stdout } = await runCli(['run', file]);
    expect(status).to.equal(1);
    const [ok, missing, bad, unknown] = JSON.parse(stdout);
    expect(ok.output).to.include('package.json');
    expect(missing.output).to.match(/^Error: ENOENT/);
    expect(bad.output).to.equal('Error: invalid arguments: to: expected integer, got "ten"');
    expect(unknown.output).to.equal(
      'Error: no tool for call "unknown": unknown tool "no_such_tool"',
    );
  });

  it('reads JSONL on stdin', async () => {
    const stdin = [
      call('x', 'bash', { command: 'echo from stdin' }),
      call('y', 'list_dir', { path: 'cli/tools' }),
    ]
      .map((item) => JSON.stringify(item))
      .join('\n');
    const { status, stdout } = await runCli(['run', '-'], { stdin });
    expect(status).to.equal(0);
    expect(
      JSON.parse(stdout).map((i: { output: string }) => i.output.split('\n')[0]),
    ).to.deep.equal(['from stdin', 'ask-user.ts']);
  });

  it('--json writes the jobs, every start and every ExecutionEvent as JSON lines, then the output items', async () => {
    const file = turnFile('json.json', [
      call('a', 'slow_count', { to: 2, step_ms: 30 }),
      call('b', 'bash', { command: 'echo hi' }),
    ]);
    const { status, stdout } = await runCli(['run', file, '--json']);
    expect(status).to.equal(0);
    const lines = jsonLines(stdout);
    expect(lines[0]).to.deep.equal({
      type: 'batch',
      jobs: [
        { index: 0, callId: 'a', name: 'slow_count', args: '{"to":2,"step_ms":30}', resource: '' },
        {
          index: 1,
          callId: 'b',
          name: 'bash',
          args: '{"command":"echo hi"}',
          resource: 'shell:session',
        },
      ],
    });
    const events = lines.filter((l) => l.type === 'event');
    expect(
      events
        .filter((e) => e.final)
        .map((e) => e.index)
        .sort(),
    ).to.deep.equal([0, 1]);
    expect(
      events.filter((e) => !e.final && e.index === 0).map((e) => e.result.details),
    ).to.deep.equal([
      { progress: 1, total: 2, message: 'counted 1 of 2' },
      { progress: 2, total: 2, message: 'counted 2 of 2' },
    ]);
    expect(
      lines
        .filter((l) => l.type === 'start')
        .map((l) => l.index)
        .sort(),
    ).to.deep.equal([0, 1]);
    expect(lines.at(-1).type).to.equal('output');
    expect(lines.at(-1).items.map((i: { output: string }) => i.output)).to.deep.equal([
      'counted to 2',
      'hi\n[exit code 0]',
    ]);
  });

  it('--sequential runs one call at a time in model order', async () => {
    const file = turnFile('seq.json', [
      call('a', 'slow_count', { to: 2, step_ms: 40 }),
      call('b', 'slow_count', { to: 1, step_ms: 10 }),
      call('c', 'list_dir', { path: '.' }),
    ]);
    const { stdout } = await runCli(['run', file, '--json', '--sequential']);
    const order = jsonLines(stdout)
      .filter((l) => l.type === 'start' || (l.type === 'event' && l.final))
      .map((l) => `${l.type === 'start' ? 'start' : 'end'} ${l.index}`);
    expect(order).to.deep.equal(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('--max-parallel bounds how many calls run at once', async () => {
    const file = turnFile(
      'bound.json',
      [0, 1, 2, 3].map((i) => call(`c${i}`, 'slow_count', { to: 2, step_ms: 40 })),
    );
    const { stdout } = await runCli(['run', file, '--json', '--max-parallel', '2']);
    let running = 0;
    let most = 0;
    for (const l of jsonLines(stdout)) {
      if (l.type === 'start') most = Math.max(most, ++running);
      if (l.type === 'event' && l.final) running--;
    }
    expect(most).to.equal(2);
  });

  it('--timeout cancels a call that runs too long and says so', async () => {
    const file = turnFile('timeout.json', [
      call('slow', 'slow_count', { to: 50, step_ms: 100 }),
      call('fast', 'list_dir', { path: '.' }),
    ]);
    const { status, stdout } = await runCli(['run', file, '--timeout', '300']);
    expect(status).to.equal(1);
    const [slow, fast] = JSON.parse(stdout);
    expect(slow.output).to.equal('Error: call timed out after 300 ms');
    expect(fast.output).to.include('package.json');
  });

  it('--timeout past what a timer holds (2^31 - 1 ms) lets a call run, not time it out at once', async () => {
    const file = turnFile('long-timeout.json', [
      call('slow', 'slow_count', { to: 2, step_ms: 30 }),
    ]);
    const { status, stdout } = await runCli(['run', file, '--timeout', '9999999999']);
    expect(status).to.equal(0);
    expect(JSON.parse(stdout)[0].output).to.equal('counted to 2');
  });

  it('--list prints the tool definitions as Open Responses function tools', async () => {
    const { status, stdout } = await runCli(['run', '--list']);
    expect(status).to.equal(0);
    const defs = JSON.parse(stdout);
    expect(defs.map((d: { name: string }) => d.name)).to.deep.equal([
      'read_file',
      'list_dir',
      'bash',
      'slow_count',
      'ask_user',
      'confirm_step',
    ]);
    expect(defs[2]).to.deep.equal({
      type: 'function',
      name: 'bash',
      description: 'Run a bash command and return its output and exit code.',
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'string', description: 'The command line to run' },
          cwd: { type: 'string', description: 'Working directory (default: the current one)' },
        },
        required: ['command'],
      },
      strict: false,
    });
  });

  it('--mcp adds the tools of an MCP server under --prefix', async () => {
    const file = turnFile('mcp.json', [
      call('e', 'every__echo', { message: 'hi there' }),
      call('img', 'every__get-tiny-image', {}),
    ]);
    const { status, stdout, stderr } = await runCli([
      'run',
      file,
      '--mcp',
      everythingServer,
      '--prefix',
      'every',
    ]);
    expect(status, stderr).to.equal(0);
    const [echo, image] = JSON.parse(stdout);
    expect(echo.output).to.equal('Echo: hi there');
    // Piped, the text output stays readable: the image is one line naming its type and size.
    expect(image.output.find((p: { type: string }) => p.type === 'input_image').image_url).to.match(
      /^\[image\/png, \d+(\.\d)? KiB\]$/,
    );
    expect(stdout).to.not.match(/base64/);
  });

  it("npm start's turn, piped, is text a person reads: no line of base64, the image one line", async () => {
    const args = ['run', 'examples/turn.json', '--mcp', everythingServer, '--prefix', 'every'];
    const { status, stdout, stderr } = await runCli(args);
    // The bundled turn fails two calls on purpose (README.md).
    expect(status, stderr).to.equal(1);
    const long = stdout.split('\n').filter((line) => line.length > 200);
    expect(long, 'lines over 200 characters').to.deep.equal([]);
    expect(stdout).to.match(/"image_url": "\[image\/png, \d+(\.\d)? KiB\]"/);
  });

  it('--json keeps every byte of an image, piped', async () => {
    const file = turnFile('mcp-json.json', [call('img', 'every__get-tiny-image', {})]);
    const { status, stdout, stderr } = await runCli([
      'run',
      file,
      '--json',
      '--mcp',
      everythingServer,
      '--prefix',
      'every',
    ]);
    expect(status, stderr).to.equal(0);
    const { items } = jsonLines(stdout).find((line) => line.type === 'output')!;
    const part = items[0].output.find((p: { type: string }) => p.type === 'input_image');
    expect(part.image_url).to.match(/^data:image\/png;base64,[A-Za-z0-9+/]{1000,}=*$/);
  });

  it('Ctrl-C cancels: running calls stop, their process groups are reaped, the output says cancelled', async () => {
    const file = turnFile('cancel.json', [
      call('long', 'bash', { command: 'echo pgid $$; sleep 30' }),
      call('after', 'bash', { command: 'echo never runs' }),
      call('quick', 'list_dir', { path: 'cli/tools' }),
    ]);
    const child = startCli(['run', file, '--json']);
    const done = finished(child);
    // Interrupt once the long command runs and the quick call has finished.
    let pgid = 0;
    let quickDone = false;
    await new Promise<void>((resolve) => {
      let buffer = '';
      child.stdout!.on('data', (d: Buffer) => {
        buffer += d.toString();
        const match = /"output":"pgid (\d+)"/.exec(buffer);
        if (match !== null) pgid = Number(match[1]);
        quickDone ||= /"index":2,"callId":"quick","final":true/.test(buffer);
        if (pgid !== 0 && quickDone) resolve();
      });
    });
    expect(() => process.kill(-pgid, 0), 'the command is running').not.to.throw();
    const sent = Date.now();
    child.kill('SIGINT');
    const { status, stdout } = await done;
    expect(Date.now() - sent).to.be.below(5000);
    expect(status).to.equal(1);
    const output = jsonLines(stdout).at(-1).items;
    expect(output.map((i: { output: string }) => i.output.split('\n')[0])).to.deep.equal([
      'Error: call cancelled',
      'Error: call cancelled',
      'ask-user.ts',
    ]);
    expect(() => process.kill(-pgid, 0), 'the process group is gone').to.throw(/ESRCH/);
  });
});

describe('agenttool run: bad input exits 2 with a one-line error', function () {
  this.timeout(scaled(20_000));
  const cases: [string, () => string[], RegExp][] = [
    [
      'an unreadable file',
      () => ['run', join(dir, 'nope.json')],
      /^agenttool: cannot read .*nope\.json: ENOENT\n$/,
    ],
    [
      'text that is not JSON',
      () => ['run', turnFile('garbage.json', '{"type": "function_call",\n oops')],
      /^agenttool: .*garbage\.json: line 2, column 2: not valid JSON: unexpected "o"\n$/,
    ],
    [
      'a function_call without arguments',
      () => [
        'run',
        turnFile('noargs.json', [{ type: 'function_call', call_id: 'a', name: 'bash' }]),
      ],
      /^agenttool: .*item 1: a function_call needs a string "arguments"\n$/,
    ],
    [
      'a call_id used twice',
      () => ['run', turnFile('dup.json', [call('a', 'bash', {}), call('a', 'bash', {})])],
      /call_id "a" is used twice/,
    ],
    [
      'a turn without function calls',
      () => ['run', turnFile('none.json', [{ type: 'message' }])],
      /no function_call items/,
    ],
    ['an unknown option', () => ['run', '--bogus'], /^agenttool: unknown option "--bogus"\n$/],
    [
      'a bad number',
      () => ['run', '--max-parallel', '0'],
      /^agenttool: --max-parallel takes a whole number of at least 1, got "0"\n$/,
    ],
    ['an unknown command', () => ['launch'], /^agenttool: unknown command "launch"/],
    [
      'an MCP server that does not start',
      () => ['run', '--list', '--mcp', 'node -e "process.exit(3)"'],
      /^agenttool: --mcp node -e process.exit\(3\): mcp: connect/,
    ],
    [
      'an MCP server command that does not exist, said once',
      () => ['run', '--list', '--mcp', 'no-such-command-7f3a'],
      /^agenttool: --mcp no-such-command-7f3a: mcp: connect: spawn no-such-command-7f3a ENOENT\n$/,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const { status, stdout, stderr } = await runCli(args());
      expect(status).to.equal(2);
      expect(stdout).to.equal('');
      expect(stderr).to.match(message);
      expect(stderr.trim().split('\n')).to.have.length(1);
    });
  }
});
