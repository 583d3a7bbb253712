/**
 * `agenttool serve --mcp` field by field against the reference server: one client connects to
 * server-everything directly, another through `agenttool serve --mcp <server-everything>`, both
 * declaring what the proxy declares to its upstream (roots, questions of both modes), since
 * server-everything lists some tools only to a client that declares them (docs/mcp.md, "Not
 * yet": one upstream connection serves every client); what each sees is compared:
 * capabilities, instructions, tools/list, a call's result, the server's log messages, the roots
 * the server sees, and the unknown-tool error. MCP 2025-11-25 (server-everything speaks no later
 * revision); test/mcp/mcp-proxy-serve-modern.test.ts does 2026-07-28.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { resolve } from 'node:path';
import { bundledTools } from '../../cli/tools/index.js';
import { cliArgs, everythingServer, root } from '../support/cli.js';
import { until } from '../support/until.js';
import { scaled } from '../support/time.js';

/**
 * A client that declares roots (`file:///work/client-root`, then whatever `roots` is changed to)
 * and questions of both modes.
 */
function reader(name: string): {
  client: Client;
  logs: unknown[];
  roots: { uri: string; name?: string }[];
} {
  const client = new Client(
    { name, version: '1' },
    { capabilities: { roots: { listChanged: true }, elicitation: { form: {}, url: {} } } },
  );
  const roots = [{ uri: 'file:///work/client-root', name: 'client root' }];
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  return { client, logs, roots };
}

/** What a call ends with: its result, or its JSON-RPC error's code, message and data. */
async function outcome(client: Client, name: string, args: Record<string, unknown>) {
  try {
    return { result: await client.callTool({ name, arguments: args }) };
  } catch (err) {
    const { code, message, data } = err as { code?: unknown; message?: unknown; data?: unknown };
    return { error: { code, message, data } };
  }
}

/** A tool's listing as compared: an `execution` that offers tasks is the tasks tests' to compare. */
function listed(tool: Record<string, unknown>): Record<string, unknown> {
  const { execution, ...rest } = tool as { execution?: { taskSupport?: string } };
  const tasks = execution?.taskSupport !== undefined && execution.taskSupport !== 'forbidden';
  return tasks ? rest : tool;
}

describe('agenttool serve --mcp changes nothing: server-everything, directly and through it', function () {
  this.timeout(scaled(60_000));
  const [, ...args] = everythingServer.split(' ');
  const direct = reader('direct');
  const proxied = reader('proxied');

  before(async () => {
    await direct.client.connect(
      new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }),
    );
    await proxied.client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...cliArgs(), 'serve', '--mcp', everythingServer],
        cwd: root,
        stderr: 'ignore',
      }),
    );
  });
  after(async () => {
    await direct.client.close();
    await proxied.client.close();
  });

  it('declares the capabilities of the upstream it honours: tools and logging, no resources, prompts or completions', () => {
    const theirs = direct.client.getServerCapabilities()!;
    expect(theirs.resources, 'the upstream serves resources').to.not.equal(undefined);
    // Before, the proxy's own: `tools.listChanged` and `logging` whatever the upstream declared.
    expect(proxied.client.getServerCapabilities()).to.deep.equal({
      tools: theirs.tools,
      logging: theirs.logging,
    });
  });

  it('gives the same instructions', () => {
    expect(direct.client.getInstructions()).to.be.a('string').and.have.length.above(0);
    expect(proxied.client.getInstructions()).to.equal(direct.client.getInstructions());
  });

  it("lists each of the upstream's tools as it lists them, beside the bundled tools", async () => {
    const theirs = (await direct.client.listTools()).tools;
    const ours = (await proxied.client.listTools()).tools;
    const bundled = new Set(bundledTools.map((tool) => tool.name));
    expect(ours.filter((tool) => !bundled.has(tool.name)).map(listed)).to.deep.equal(
      theirs.map(listed),
    );
    expect(ours.filter((tool) => bundled.has(tool.name))).to.have.length(bundled.size);
  });

  it('answers a call with the same result', async () => {
    const call = (client: Client) =>
      outcome(client, 'get-structured-content', { location: 'Chicago' });
    expect(await call(proxied.client)).to.deep.equal(await call(direct.client));
  });

  it('refuses an unknown tool in the shape the upstream gives it', async () => {
    const theirs = await outcome(direct.client, 'no-such-tool', {});
    // Before, the proxy answered its own -32602 `unknown tool "no-such-tool"`.
    expect(await outcome(proxied.client, 'no-such-tool', {})).to.deep.equal(theirs);
  });

  it("shows the upstream the client's roots, not the proxy's folder, and passes on what it logs of them", async () => {
    const rootsSeen = async (client: Client) => {
      const { result } = await outcome(client, 'get-roots-list', {});
      return (result?.content as { text: string }[])[0]!.text;
    };
    const theirs = await rootsSeen(direct.client);
    expect(theirs).to.include('file:///work/client-root');
    // The proxy asks its client for its roots once initialized, and tells the upstream, which asks
    // again: looked at until it has (or the ceiling).
    let ours = await rootsSeen(proxied.client);
    const deadline = Date.now() + scaled(10_000);
    while (!ours.includes('file:///work/client-root') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ours = await rootsSeen(proxied.client);
    }
    // Before, the proxy's working directory.
    expect(ours).to.equal(theirs);
    // The upstream logs what it got, outside a call: the same message reaches both clients.
    const updated = (logs: unknown[]) =>
      logs.filter((l) => JSON.stringify(l).includes('Roots updated'));
    await until(() => updated(proxied.logs).length > 0, 'the roots log message', 10_000);
    expect(updated(proxied.logs).at(-1)).to.deep.equal(updated(direct.logs).at(-1));
  });

  it("tells the upstream when the client's roots change (notifications/roots/list_changed)", async () => {
    const rootsSeen = async (client: Client) => {
      const { result } = await outcome(client, 'get-roots-list', {});
      return (result?.content as { text: string }[])[0]!.text;
    };
    const changed = 'file:///work/changed-root';
    for (const peer of [direct, proxied]) {
      peer.roots.splice(0, peer.roots.length, { uri: changed, name: 'changed root' });
      await peer.client.sendRootsListChanged();
    }
    // Each upstream asks again when told: looked at until it has (or the ceiling).
    const seenBy = async (client: Client) => {
      let seen = await rootsSeen(client);
      const deadline = Date.now() + scaled(10_000);
      while (!seen.includes(changed) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = await rootsSeen(client);
      }
      return seen;
    };
    const theirs = await seenBy(direct.client);
    expect(theirs).to.include(changed);
    expect(await seenBy(proxied.client)).to.equal(theirs);
  });
});

describe('agenttool serve --mcp changes nothing: the capabilities of an upstream that declares tools only', function () {
  this.timeout(scaled(60_000));

  it('declares neither logging nor tools.listChanged when the upstream does not', async () => {
    const upstream = `${process.execPath} --import tsx ${resolve(root, 'test/fixtures/roots-server.ts')} stdio`;
    const [command, ...args] = upstream.split(' ');
    const capabilitiesOf = async (transport: StdioClientTransport) => {
      const client = new Client({ name: 'reader', version: '1' });
      await client.connect(transport);
      try {
        return client.getServerCapabilities();
      } finally {
        await client.close();
      }
    };
    // Both at once: each starts its processes through tsx.
    const [theirs, ours] = await Promise.all([
      capabilitiesOf(
        new StdioClientTransport({ command: command!, args, cwd: root, stderr: 'ignore' }),
      ),
      capabilitiesOf(
        new StdioClientTransport({
          command: process.execPath,
          args: [...cliArgs(), 'serve', '--mcp', upstream],
          cwd: root,
          stderr: 'ignore',
        }),
      ),
    ]);
    expect(theirs).to.deep.equal({ tools: {} });
    // Before, `tools.listChanged` and `logging`, the proxy's own.
    expect(ours).to.deep.equal(theirs);
  });
});

describe('agenttool serve --mcp --prefix: an unknown tool', function () {
  this.timeout(scaled(60_000));

  it('asks the upstream under its own name a name under its prefix, and no name outside it', async () => {
    const client = new Client({ name: 'reader', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [...cliArgs(), 'serve', '--mcp', everythingServer, '--prefix', 'every'],
        cwd: root,
        stderr: 'ignore',
      }),
    );
    try {
      // server-everything's answer, an isError result naming the tool by its own name.
      const { result } = await outcome(client, 'every__no-such-tool', {});
      expect(result?.isError).to.equal(true);
      expect(JSON.stringify(result?.content)).to.include('Tool no-such-tool not found');
      // `echo` is server-everything's, served here as every__echo only: it is not run.
      const refused = await outcome(client, 'echo', { message: 'hi' });
      expect(refused.error).to.deep.include({
        code: -32602,
        message: 'MCP error -32602: unknown tool "echo"',
      });
    } finally {
      await client.close();
    }
  });
});
