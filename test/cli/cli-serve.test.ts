import { expect } from 'chai';
import { lastValueFrom, toArray } from 'rxjs';
import { connectMcp, httpTransport } from '../../adapters/mcp-client/index.js';
import { stdioTransport } from '../../adapters/mcp-stdio/index.js';
import { CallContext, resourceOf, type Tool, type ToolEvent } from '../../index.js';
import { cliArgs, finished, root, startCli } from '../support/cli.js';
import { scaled } from '../support/time.js';

async function call(tool: Tool | undefined, args: object): Promise<ToolEvent[]> {
  if (tool === undefined) throw new Error('no such tool');
  const c = { id: 'c1', args: JSON.stringify(args) };
  return lastValueFrom(tool.execute(c, new CallContext(c)).pipe(toArray()));
}

describe('agenttool serve', function () {
  this.timeout(scaled(30_000));

  it('serves the bundled tools over stdio to any MCP client', async () => {
    const remote = await connectMcp(
      stdioTransport({
        command: process.execPath,
        args: [...cliArgs(), 'serve'],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    try {
      expect(remote.tools.map((t) => t.name)).to.deep.equal([
        'read_file',
        'list_dir',
        'bash',
        'slow_count',
        'ask_user',
        'confirm_step',
      ]);
      // bash's resource is listed in its _meta, so a client runs its calls in turn unasked.
      expect(resourceOf(remote.tools.find((t) => t.name === 'bash')!)).to.equal('shell:session');
      const events = await call(
        remote.tools.find((t) => t.name === 'slow_count'),
        { to: 2, step_ms: 10 },
      );
      expect(events.map((e) => e.result.details)).to.deep.include({
        progress: 1,
        total: 2,
        message: 'counted 1 of 2',
      });
      expect(events.at(-1)?.result.output).to.equal('counted to 2');
      const listed = await call(
        remote.tools.find((t) => t.name === 'list_dir'),
        { path: 'cli/tools' },
      );
      expect(listed.at(-1)?.result.output).to.include('bash.ts');
    } finally {
      await remote.close();
    }
  });

  it('serves Streamable HTTP on --http, prints where, and stops on SIGTERM', async () => {
    const child = startCli(['serve', '--http', '0']);
    const done = finished(child);
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stderr!.on('data', (d: Buffer) => {
        text += d.toString();
        const match = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text);
        if (match) resolve(match[1]!);
      });
      child.once('close', () => reject(new Error(`exited: ${text}`)));
    });
    const remote = await connectMcp(httpTransport(url));
    try {
      const events = await call(
        remote.tools.find((t) => t.name === 'bash'),
        { command: 'echo over http' },
      );
      expect(events.at(-1)?.result.output).to.equal('over http\n[exit code 0]');
    } finally {
      await remote.close();
    }
    child.kill('SIGTERM');
    expect((await done).status).to.equal(0);
  });
});
