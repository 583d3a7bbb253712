/**
 * MCP tasks through the CLI: `agenttool run` calls a tool its server runs as a task and shows the
 * task's status as the call's progress (`--json` events, the live rows), in both generations:
 * server-everything's `simulate-research-query` (MCP 2025-11-25) and `agenttool serve --http
 * --tasks` (MCP 2026-07-28), whose `slow_count` is a task tool.
 */
import { expect } from 'chai';
import { everythingServer, runCli, serveCli } from './support/cli.js';

const call = (call_id: string, name: string, args: object) =>
  JSON.stringify({ type: 'function_call', call_id, name, arguments: JSON.stringify(args) });

type Line = {
  type: string;
  final?: boolean;
  index?: number;
  result?: { output: unknown; details?: { task?: { taskId: string; status: string } } };
  items?: { output: string }[];
};

const jsonLines = (text: string): Line[] =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);

describe('agenttool run: calls its MCP servers run as tasks', function () {
  this.timeout(60_000);

  it('shows a 2025-11-25 task’s status as progress, and its result as the output', async () => {
    const { status, stdout, stderr } = await runCli(
      ['run', '-', '--json', '--mcp', everythingServer, '--prefix', 'every'],
      { stdin: call('r', 'every__simulate-research-query', { topic: 'bees' }) },
    );
    expect(status, stderr).to.equal(0);
    const lines = jsonLines(stdout);
    const progress = lines.filter((l) => l.type === 'event' && l.final === false);
    expect(progress.map((l) => l.result!.output)).to.include('Gathering sources...');
    expect(progress[0]!.result!.details!.task).to.include({ status: 'working' });
    expect(lines.at(-1)!.items![0]!.output).to.match(/^# Research Report: bees\n/);
  });

  it('shows a 2026-07-28 task’s status (agenttool serve --http --tasks) as progress', async () => {
    const served = serveCli(['--tasks']);
    try {
      const url = await served.url;
      expect(served.stderr()).to.contain('tasks in memory');
      const { status, stdout, stderr } = await runCli(
        ['run', '-', '--json', '--mcp-url', url.href, '--prefix', 'far'],
        {
          stdin: call('c', 'far__slow_count', { to: 3, step_ms: 300 }),
        },
      );
      expect(status, stderr).to.equal(0);
      const lines = jsonLines(stdout);
      const progress = lines.filter((l) => l.type === 'event' && l.final === false);
      expect(progress.length).to.be.greaterThan(0);
      for (const line of progress) {
        expect(line.result!.output).to.match(/^counted [123] of 3$/);
        expect(line.result!.details!.task!.taskId).to.match(/^[0-9a-f-]{36}$/);
      }
      expect(lines.at(-1)!.items![0]!.output).to.equal('counted to 3');
    } finally {
      served.child.kill('SIGTERM');
      await served.done;
    }
  });
});
