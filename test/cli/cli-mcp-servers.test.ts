import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'chai';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { createMcpServer, serveHttp, type McpHttpServer } from '../../adapters/mcp-server/index.js';
import { parseArgs, type RunArgs } from '../../cli/args.js';
import { tool } from '../../index.js';
import { cliArgs, everythingServer, root, runCli } from '../support/cli.js';
import { scaled } from '../support/time.js';

const call = (call_id: string, name: string, args: object) =>
  JSON.stringify({ type: 'function_call', call_id, name, arguments: JSON.stringify(args) });
const rootsServer = `${process.execPath} --import tsx ${resolve(root, 'test/fixtures/roots-server.ts')} stdio`;

describe('agenttool: MCP server options (--env, --mcp-url, --header, --root)', function () {
  this.timeout(scaled(90_000));

  it('--env and --header apply to the server named just before them', () => {
    const args = parseArgs([
      'run',
      '--mcp',
      'srv one',
      '--env',
      'A=1',
      '--env',
      'B=x=y',
      '--mcp-url',
      'http://127.0.0.1:9/mcp',
      '--header',
      'Authorization: Bearer t',
      '--prefix',
      'far',
      '--root',
      'a',
      '--root',
      'b',
    ]) as RunArgs;
    expect(args.mcp).to.deep.equal([
      { command: 'srv', args: ['one'], env: { A: '1', B: 'x=y' } },
      {
        command: '',
        args: [],
        url: 'http://127.0.0.1:9/mcp',
        headers: { Authorization: 'Bearer t' },
        prefix: 'far',
      },
    ]);
    expect(args.roots).to.deep.equal(['a', 'b']);
  });

  it('refuses --env, --header and --mcp-url that mean nothing, each with one line', () => {
    const refused = (argv: string[]) => {
      try {
        parseArgs(argv);
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(refused(['run', '--env', 'A=1'])).to.equal(
      '--env sets a variable of the --mcp server before it',
    );
    expect(refused(['run', '--mcp-url', 'http://h/mcp', '--env', 'A=1'])).to.equal(
      '--env sets a variable of the --mcp server before it',
    );
    expect(refused(['run', '--mcp', 'x', '--env', '1A=1'])).to.equal('--env takes NAME=VALUE');
    expect(refused(['run', '--mcp', 'x', '--header', 'A: b'])).to.equal(
      '--header sets a header of the --mcp-url server before it',
    );
    expect(refused(['serve', '--mcp-url', 'http://h/mcp', '--header', 'no colon'])).to.equal(
      '--header takes "Name: value" on one line',
    );
    expect(refused(['ui', '--mcp-url', 'ftp://h/mcp'])).to.equal(
      '--mcp-url takes an http:// or https:// URL',
    );
  });

  it('a --mcp server gets the user environment, plus its own --env variables', async () => {
    process.env.AGENTTOOL_FROM_USER = 'user-value';
    try {
      const { status, stdout } = await runCli(
        ['run', '-', '--mcp', everythingServer, '--env', 'ONLY_THIS_SERVER=set', '--prefix', 'e'],
        { stdin: call('env', 'e__get-env', {}) },
      );
      expect(status).to.equal(0);
      const env = JSON.parse(JSON.parse(stdout)[0].output) as Record<string, string>;
      expect(env.AGENTTOOL_FROM_USER).to.equal('user-value');
      expect(env.ONLY_THIS_SERVER).to.equal('set');
    } finally {
      delete process.env.AGENTTOOL_FROM_USER;
    }
  });

  describe('a server at a URL', () => {
    let http: McpHttpServer;
    const shout = tool({
      name: 'shout',
      description: 'Upper-cases.',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => text.toUpperCase(),
    });

    before(async () => {
      http = await serveHttp({
        port: 0,
        token: 'secret-token',
        factory: () => createMcpServer({ name: 'far', version: '1.0.0' }, [shout]),
      });
    });
    after(() => http?.close());

    it('run --mcp-url with --header reaches it; without the header it is a usage error', async () => {
      const url = http.url;
      const ok = await runCli(
        ['run', '-', '--mcp-url', url, '--header', 'Authorization: Bearer secret-token'],
        { stdin: call('s', 'shout', { text: 'hi' }) },
      );
      expect(ok.status).to.equal(0);
      expect(JSON.parse(ok.stdout)[0].output).to.equal('HI');
      const refused = await runCli(['run', '-', '--mcp-url', url], {
        stdin: call('s', 'shout', { text: 'hi' }),
      });
      expect(refused.status).to.equal(2);
      expect(refused.stderr).to.include(`--mcp-url ${url}:`);
    });

    it('serve --mcp-url offers its tools over stdio', async () => {
      const client = new Client({ name: 'plain', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [
            ...cliArgs(),
            'serve',
            '--mcp-url',
            http.url,
            '--header',
            'Authorization: Bearer secret-token',
            '--prefix',
            'far',
          ],
          cwd: root,
          stderr: 'ignore',
        }),
      );
      try {
        const result = await client.callTool({ name: 'far__shout', arguments: { text: 'yo' } });
        expect(result.content).to.deep.equal([{ type: 'text', text: 'YO' }]);
      } finally {
        await client.close();
      }
    });
  });

  it('offers the working directory as the root, or each --root', async () => {
    const ask = call('r', 'list_allowed_directories', {});
    const byDefault = await runCli(['run', '-', '--mcp', rootsServer], { stdin: ask });
    expect(byDefault.status).to.equal(0);
    expect(JSON.parse(byDefault.stdout)[0].output).to.equal(pathToFileURL(root).href);
    const chosen = await runCli(
      ['run', '-', '--mcp', rootsServer, '--root', 'cli', '--root', '/tmp'],
      { stdin: ask },
    );
    expect(JSON.parse(chosen.stdout)[0].output).to.equal(
      `${pathToFileURL(resolve(root, 'cli')).href}\n${pathToFileURL('/tmp').href}`,
    );
  });

  it('serve --mcp changes nothing a client sees of the proxied server (list and call)', async () => {
    const [command, ...args] = everythingServer.split(' ');
    const direct = new Client({ name: 'plain', version: '1.0.0' });
    const proxied = new Client({ name: 'plain', version: '1.0.0' });
    await direct.connect(new StdioClientTransport({ command: command!, args, stderr: 'ignore' }));
    await proxied.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...cliArgs(), 'serve', '--mcp', everythingServer],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    try {
      const want = (await direct.listTools()).tools;
      const got = (await proxied.listTools()).tools;
      expect(want.some((t) => t.outputSchema !== undefined)).to.equal(true);
      // Tasks are not proxied: a tool that offers them is listed without that offer.
      for (const listed of want.filter((t) => t.execution?.taskSupport !== 'required'))
        expect(
          got.find((t) => t.name === listed.name),
          listed.name,
        ).to.deep.equal(listed);
      for (const request of [
        { name: 'get-structured-content', arguments: { location: 'Chicago' } },
        { name: 'get-tiny-image', arguments: {} },
        { name: 'get-sum', arguments: { a: 'one', b: 2 } },
      ])
        expect(await proxied.callTool(request), request.name).to.deep.equal(
          await direct.callTool(request),
        );
    } finally {
      await Promise.all([direct.close(), proxied.close()]);
    }
  });
});
