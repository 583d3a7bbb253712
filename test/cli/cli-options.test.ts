/**
 * `agenttool`'s options come from one table (cli/options.ts) that both parses and prints the
 * help: every command answers `-h` and `--help` with its own options, every option the table
 * gives a command parses there and is refused elsewhere with the commands that take it, and the
 * version is the package's.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from '../../cli/args.js';
import { OPTIONS, type Command } from '../../cli/options.js';
import { root, runCli } from '../support/cli.js';
import { scaled } from '../support/time.js';

const COMMANDS: Command[] = ['run', 'ui', 'serve', 'worker'];

/** A value each option takes, for a command line that must parse. */
const SAMPLES: Record<string, string> = {
  mcp: 'srv --stdio',
  env: 'A=1',
  'mcp-url': 'http://127.0.0.1:9/mcp',
  header: 'X-Key: 1',
  prefix: 'p',
  root: '.',
  'max-parallel': '2',
  timeout: '5',
  answer: 'decline',
  replay: 'run.jsonl',
  port: '0',
  http: '0',
  host: '127.0.0.1',
  token: 't',
  'max-sessions': '2',
  'max-calls': '2',
  'max-queued': '1',
  'drain-grace': '0',
  instance: 'a',
  'state-key': 'k'.repeat(32),
  advertise: 'http://10.0.0.1:8101/mcp',
  'allow-host': 'tools.example',
  'allow-origin': 'http://localhost:4200',
  tasks: 'redis://127.0.0.1:6379',
  redis: 'redis://127.0.0.1:6379',
  queue: 'q',
  'secret-file': 'fleet.key',
  'batch-id': 'b1',
  otlp: 'http://127.0.0.1:4318',
  'trace-url': 'http://127.0.0.1:16686/trace/{traceId}',
  concurrency: '2',
  'task-lease': '1000',
  'max-tasks': '2',
  'max-held-calls': '2',
  'question-timeout': '60000',
};

/** What an option needs beside it to mean something (the server it applies to, --http). */
function context(name: string, command: Command): string[] {
  // A worker needs its Redis whatever else it is given.
  const redis =
    command === 'worker' && name !== 'redis' ? ['--redis', 'redis://127.0.0.1:6379'] : [];
  return [...redis, ...needs(name, command)];
}

function needs(name: string, command: Command): string[] {
  if (name === 'env') return ['--mcp', 'srv'];
  if (name === 'header' || name === 'auth') return ['--mcp-url', 'http://127.0.0.1:9/mcp'];
  if (name === 'prefix') return ['--mcp', 'srv'];
  if (name === 'max-queued') return ['--http', '0', '--max-calls', '2'];
  if (name === 'task-lease' || name === 'max-tasks') return ['--http', '0', '--tasks'];
  if (name === 'trace-url') return ['--otlp', 'http://127.0.0.1:4318'];
  if (['queue', 'secret-file', 'batch-id'].includes(name) && command !== 'worker')
    return ['--redis', 'redis://127.0.0.1:6379'];
  if (command === 'serve' && !['mcp', 'mcp-url', 'root', 'http', 'host'].includes(name))
    return ['--http', '0'];
  return [];
}

describe('agenttool: one option table parses and prints the help', function () {
  this.timeout(scaled(30_000));

  it('has a help entry and a sample for every option, and no option twice', () => {
    const names = OPTIONS.map((o) => o.name);
    expect(new Set(names).size).to.equal(names.length);
    for (const o of OPTIONS) {
      expect(o.help.length, o.name).to.be.greaterThan(10);
      if (o.value !== undefined) expect(SAMPLES, o.name).to.have.property(o.name);
    }
  });

  for (const command of COMMANDS)
    for (const o of OPTIONS)
      if (o.commands.includes(command))
        it(`${command} takes --${o.name}`, () => {
          const value = o.value === undefined ? [] : [SAMPLES[o.name]!];
          const args = [command, ...context(o.name, command), `--${o.name}`, ...value];
          expect(() => parseArgs(args)).not.to.throw();
        });
      else
        it(`${command} refuses --${o.name}, naming the commands that take it`, () => {
          const value = o.value === undefined ? [] : [SAMPLES[o.name]!];
          const takers = o.commands.map((c) => `"agenttool ${c}"`).join(' and ');
          expect(() => parseArgs([command, `--${o.name}`, ...value])).to.throw(
            `--${o.name} is an option of ${takers}`,
          );
        });

  it('takes --tasks alone (memory) or with a Redis URL, after it or after =', () => {
    const serve = (...words: string[]) => parseArgs(['serve', '--http', '0', ...words]);
    expect(serve('--tasks')).to.include({ tasks: 'memory' });
    expect(serve('--tasks', 'redis://h:6379')).to.include({ tasks: 'redis://h:6379' });
    expect(serve('--tasks=rediss://h:6380', '--stateless')).to.include({
      tasks: 'rediss://h:6380',
      stateless: true,
    });
    expect(serve('--tasks', '--task-lease', '900')).to.include({ tasks: 'memory', taskLease: 900 });
    expect(() => serve('--tasks=http://h')).to.throw(
      '--tasks takes nothing (memory) or a redis:// URL, got "http://h"',
    );
    expect(() => serve('--tasks', 'http://h')).to.throw('unexpected argument "http://h"');
    expect(() => parseArgs(['serve', '--tasks'])).to.throw('--tasks applies to --http only');
    expect(() => serve('--task-lease', '900')).to.throw('--task-lease applies with --tasks only');
  });

  it('refuses a value given to a flag that takes none, and an unknown option, in one line', () => {
    expect(() => parseArgs(['run', '--json=yes'])).to.throw('--json takes no value');
    expect(() => parseArgs(['run', '--jsno'])).to.throw('unknown option "--jsno"');
    expect(() => parseArgs(['run', '-x'])).to.throw('unknown option "-x"');
  });

  for (const command of COMMANDS)
    for (const flag of ['-h', '--help'])
      it(`agenttool ${command} ${flag} prints the command's usage and every option it takes`, async () => {
        const { status, stdout, stderr } = await runCli([command, '--mcp', 'x', flag]);
        expect(status, stderr).to.equal(0);
        expect(stdout.split('\n')[0]).to.match(new RegExp(`^usage: agenttool ${command} `));
        for (const o of OPTIONS)
          if (o.commands.includes(command)) expect(stdout).to.contain(`  --${o.name}`);
          else expect(stdout).not.to.contain(`  --${o.name} `);
        expect(stdout).to.contain('-h, --help');
      });

  it('agenttool help lists every command with its options', async () => {
    const { status, stdout } = await runCli(['help']);
    expect(status).to.equal(0);
    for (const command of COMMANDS) expect(stdout).to.contain(`usage: agenttool ${command} `);
    for (const o of OPTIONS) expect(stdout).to.contain(`--${o.name}`);
  });

  it('agenttool --version prints the version in package.json', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const { status, stdout } = await runCli(['--version']);
    expect(status).to.equal(0);
    expect(stdout).to.equal(`agenttool ${pkg.version}\n`);
  });
});
