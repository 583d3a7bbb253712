/**
 * MCP tasks through the CLI: `agenttool run` calls a tool its server runs as a task and shows the
 * task's status as the call's progress (`--json` events, the live rows), in both generations:
 * server-everything's `simulate-research-query` (MCP 2025-11-25) and `agenttool serve --http
 * --tasks` (MCP 2026-07-28), whose `slow_count` is a task tool.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { everythingServer, finished, runCli, serveCli, startCli } from '../support/cli.js';
import { EventStreamReader } from '../support/ui.js';
import { scaled } from '../support/time.js';

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
  this.timeout(scaled(60_000));

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

  it('feeds the web front (agenttool ui) a task’s status as the call’s progress', async () => {
    const served = serveCli(['--tasks']);
    const readers: EventStreamReader[] = [];
    try {
      const url = await served.url;
      const turn = join(mkdtempSync(join(tmpdir(), 'agenttool-tasks-ui-')), 'turn.jsonl');
      writeFileSync(turn, call('c', 'far__slow_count', { to: 3, step_ms: 300 }));
      const ui = startCli(['ui', turn, '--no-open', '--mcp-url', url.href, '--prefix', 'far']);
      const done = finished(ui);
      const page = await new Promise<URL>((resolve, reject) => {
        let text = '';
        ui.stderr!.on('data', (d: Buffer) => {
          text += d.toString();
          const found = /the web front is at (http:\/\/\S+) /.exec(text);
          if (found !== null) resolve(new URL(found[1]!));
        });
        ui.once('exit', () => reject(new Error(`agenttool ui exited: ${text}`)));
      });
      const html = await (await fetch(page)).text();
      const token = /<meta name="agenttool-token" content="([\w-]+)"/.exec(html)![1]!;
      const reader = new EventStreamReader(new URL(`events?token=${token}`, page));
      readers.push(reader);
      const progress = (await reader.waitFor(
        (r) => r.type === 'event' && (r as { final?: boolean }).final === false,
      )) as unknown as Line;
      expect(progress.result!.output).to.match(/^counted [123] of 3$/);
      expect(['working', 'completed']).to.include(progress.result!.details!.task!.status);
      const output = (await reader.waitFor((r) => r.type === 'output')) as unknown as Line;
      expect(output.items![0]!.output).to.equal('counted to 3');
      ui.kill('SIGTERM');
      await done;
    } finally {
      for (const reader of readers) reader.close();
      served.child.kill('SIGTERM');
      await served.done;
    }
  });
});
