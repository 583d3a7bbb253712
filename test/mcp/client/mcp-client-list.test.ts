import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { firstValueFrom, lastValueFrom, type Subscription, toArray } from 'rxjs';
import {
  connectMcp,
  type McpClientOptions,
  type McpRemote,
} from '../../../adapters/mcp-client/index.js';
import { annotationsOf, confinedBy, isSequential, resourceOf, type Tool } from '../../../index.js';
import { CallContext } from '../../../index.js';
import { runTool } from '../../support/run.js';
import { scaled } from '../../support/time.js';

interface Scripted {
  server: Server;
  tools: McpTool[];
  lists: number;
  /** While set, tools/list waits for it. */
  gate: Promise<void> | undefined;
  onList: (() => void) | undefined;
}

const def = (name: string, extra: Partial<McpTool> = {}): McpTool => ({
  name,
  description: `the ${name} tool`,
  inputSchema: { type: 'object', properties: {} },
  ...extra,
});

/** A hand-written server whose list and calls the test scripts. */
async function scripted(
  listChanged: boolean,
  options: McpClientOptions = {},
  tools: McpTool[] = [def('plain'), def('ro', { annotations: { readOnlyHint: true } })],
): Promise<{ state: Scripted; remote: McpRemote }> {
  const server = new Server(
    { name: 'scripted', version: '1.0.0' },
    { capabilities: { tools: listChanged ? { listChanged: true } : {} } },
  );
  const state: Scripted = { server, tools, lists: 0, gate: undefined, onList: undefined };
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    state.lists++;
    state.onList?.();
    await state.gate;
    return { tools: [...state.tools] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const name = request.params.name;
    if (name === 'notify_later') {
      state.tools.push(def('added_later'));
      setTimeout(() => void server.sendToolListChanged(), 5);
    } else if (name === 'notify_first') {
      state.tools.push(def('added_first'));
      await server.sendToolListChanged();
    }
    return { content: [{ type: 'text', text: name }] };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const remote = await connectMcp(clientSide, options);
  return { state, remote };
}

function find(remote: McpRemote, name: string): Tool {
  const tool = remote.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

/** The tool names at the moment the call's final event arrives. */
function namesAtFinal(remote: McpRemote, tool: Tool): Promise<string[]> {
  const call = { id: 'c', args: '' };
  return new Promise((resolve, reject) => {
    tool.execute(call, new CallContext(call)).subscribe({
      next: (event) => {
        if (event.final) resolve(remote.tools.map((t) => t.name));
      },
      error: reject,
    });
  });
}

describe('MCP client: the tool list over time', function () {
  this.timeout(scaled(3_000));
  const opened: McpRemote[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((r) => r.close()));
  });
  const open = async (
    listChanged: boolean,
    options?: McpClientOptions,
    tools?: McpTool[],
  ): Promise<{ state: Scripted; remote: McpRemote }> => {
    const made = await scripted(listChanged, options, tools);
    opened.push(made.remote);
    return made;
  };

  it('a call whose server announces a new list just after answering returns with that list in place', async () => {
    const { state, remote } = await open(true, { notificationGrace: 60_000 });
    // The server shows it sends list changes; from then on a call waits for one.
    state.tools.push(def('notify_later'));
    const listed = new Promise<void>((resolve) => (state.onList = resolve));
    await state.server.sendToolListChanged();
    await listed;
    await remote.await();
    expect(await namesAtFinal(remote, find(remote, 'notify_later'))).to.include('added_later');
  });

  it('a server that advertises listChanged but has never sent one is not waited for', async () => {
    // A grace of an hour: the call can only return within the test's time if it does not wait.
    const { remote } = await open(true, { notificationGrace: 3_600_000 });
    expect((await runTool(find(remote, 'plain'))).events.at(-1)?.result.output).to.equal('plain');
  });

  it('a notification that arrives before the answer is reflected before the call returns', async () => {
    const { state, remote } = await open(true, { notificationGrace: 0 });
    state.tools.push(def('notify_first'));
    await remote.refresh();
    expect(await namesAtFinal(remote, find(remote, 'notify_first'))).to.include('added_first');
  });

  it('a read-only tool does not wait out the grace', async () => {
    const { remote } = await open(true, { notificationGrace: 60_000 });
    expect((await runTool(find(remote, 'ro'))).events.at(-1)?.result.output).to.equal('ro');
  });

  it('a server that does not advertise listChanged is not waited for', async () => {
    const { remote } = await open(false, { notificationGrace: 60_000 });
    expect((await runTool(find(remote, 'plain'))).events.at(-1)?.result.output).to.equal('plain');
  });

  it('await() resolves once the list reflects a notification received before it', async () => {
    const { state, remote } = await open(true);
    expect(await remote.await()).to.equal(remote.tools);
    state.tools.push(def('fresh'));
    await state.server.sendToolListChanged();
    const list = await remote.await();
    expect(list.map((t) => t.name)).to.include('fresh');
  });

  it('notifications during a refresh coalesce into one more refresh', async () => {
    const { state, remote } = await open(true);
    const emitted: string[][] = [];
    const subscription = remote.tools$.subscribe((list) => emitted.push(list.map((t) => t.name)));
    let release!: () => void;
    state.gate = new Promise((resolve) => (release = resolve));
    const listing = new Promise<void>((resolve) => (state.onList = resolve));
    await state.server.sendToolListChanged();
    await listing;
    state.tools.push(def('late'));
    for (let i = 0; i < 4; i++) await state.server.sendToolListChanged();
    state.gate = undefined;
    release();
    await remote.await();
    subscription.unsubscribe();
    expect(state.lists).to.equal(3); // the first list, the gated refresh, one for the four
    expect(emitted).to.have.length(3);
    expect(emitted.at(-1)).to.include('late');
  });

  it('refresh() lists again; a tool whose definition did not change keeps its value', async () => {
    const { state, remote } = await open(true);
    const plain = find(remote, 'plain');
    state.tools.push(def('more'));
    state.tools[1] = def('ro', { description: 'changed' });
    const list = await remote.refresh();
    expect(list.map((t) => t.name)).to.deep.equal(['plain', 'ro', 'more']);
    expect(list[0]).to.equal(plain);
    expect(find(remote, 'ro').description).to.equal('changed');
  });

  it('tools$ replays the current list, then completes on close; await() then rejects', async () => {
    const { remote } = await open(true);
    const lists = lastValueFrom(remote.tools$.pipe(toArray()));
    await remote.close();
    expect((await lists).map((l) => l.length)).to.deep.equal([2]);
    let failure: unknown;
    await remote.await().catch((e: unknown) => (failure = e));
    expect((failure as Error).message).to.equal('mcp: connection closed');
  });

  it('tools$: firstValueFrom gets the current list, a follower that joins while a list is sent gets it once, one after close only completes', async () => {
    const { state, remote } = await open(true);
    const first = await firstValueFrom(remote.tools$);
    expect(first).to.equal(remote.tools);
    const seen: string[][] = [];
    const joined: string[][] = [];
    let joiner: Subscription | undefined;
    const follower = remote.tools$.subscribe((list) => {
      seen.push(list.map((t) => t.name));
      // Joining while a new list is being sent: it gets the list once, as it subscribes.
      if (seen.length === 2)
        joiner = remote.tools$.subscribe((later) => joined.push(later.map((t) => t.name)));
    });
    state.tools.push(def('fresh'));
    await remote.refresh();
    expect(seen).to.deep.equal([
      ['plain', 'ro'],
      ['plain', 'ro', 'fresh'],
    ]);
    expect(joined).to.deep.equal([['plain', 'ro', 'fresh']]);
    follower.unsubscribe();
    state.tools.pop();
    await remote.refresh();
    expect(seen).to.have.length(2);
    expect(joined.map((l) => l.length)).to.deep.equal([3, 2]);
    let completed = false;
    joiner!.add(() => (completed = true));
    await remote.close();
    expect(completed).to.equal(true);
    const after = await lastValueFrom(remote.tools$.pipe(toArray()));
    expect(after).to.deep.equal([]);
  });
});

describe('MCP client: the application claims, the server hints', () => {
  const opened: McpRemote[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((r) => r.close()));
  });

  it('names tools with the prefix and takes sequential, resource and confined claims by either name', async () => {
    const { remote } = await scripted(
      false,
      {
        prefix: 'srv',
        sequential: ['a'],
        resources: { 'shell:session': ['srv__b'] },
        confined: { srv__a: 'container:box', c: 'seatbelt' },
      },
      [def('a'), def('b'), def('c'), def('d')],
    );
    opened.push(remote);
    const [a, b, c, d] = remote.tools as Tool[];
    const call = { id: 'x', args: '{}' };
    const context = new CallContext(call);
    expect(remote.tools.map((t) => t.name)).to.deep.equal(['srv__a', 'srv__b', 'srv__c', 'srv__d']);
    expect(remote.name('a')).to.equal('srv__a');
    expect([a, b, c, d].map((t) => isSequential(t!))).to.deep.equal([true, false, false, false]);
    expect(resourceOf(b!)).to.equal('shell:session');
    expect(confinedBy(a!, '{}', context)).to.deep.equal({ confined: true, by: 'container:box' });
    expect(confinedBy(c!, '{}', context)).to.deep.equal({ confined: true, by: 'seatbelt' });
    expect(confinedBy(d!, '{}', context)).to.deep.equal({ confined: false, by: '' });
  });

  it('maps annotations with MCP defaults and reads nothing else a server puts in them', async () => {
    const liar = def('liar', {
      annotations: {
        readOnlyHint: true,
        sequential: false,
        confined: true,
      } as McpTool['annotations'],
      _meta: { sequential: false, resource: 'none', confined: true },
    });
    const { remote } = await scripted(false, { sequential: ['liar'] }, [
      liar,
      def('bare'),
      def('empty_block', { annotations: {} }),
      def('titled', { title: 'Titled' }),
    ]);
    opened.push(remote);
    const [l, bare, empty, titled] = remote.tools as Tool[];
    const call = { id: 'x', args: '{}' };
    expect(annotationsOf(l!)).to.deep.equal({
      readOnlyHint: true,
      openWorldHint: true,
    });
    // The application said sequential; the server's say-so cannot undo it or claim a sandbox.
    expect(isSequential(l!)).to.equal(true);
    expect(resourceOf(l!)).to.equal('');
    expect(confinedBy(l!, '{}', new CallContext(call))).to.deep.equal({ confined: false, by: '' });
    expect(annotationsOf(bare!)).to.deep.equal({});
    expect(annotationsOf(empty!)).to.deep.equal({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(annotationsOf(titled!)).to.deep.equal({ title: 'Titled' });
  });

  it('arguments that are not a JSON object fail before anything is sent', async () => {
    const { state, remote } = await scripted(false);
    opened.push(remote);
    const calls: string[] = [];
    state.server.setRequestHandler(CallToolRequestSchema, (request) => {
      calls.push(request.params.name);
      return { content: [] };
    });
    const plain = find(remote, 'plain');
    expect((await runTool(plain, '{oops')).error)
      .to.have.property('message')
      .that.matches(/^invalid arguments: not valid JSON: /);
    expect((await runTool(plain, '[1]')).error).to.have.property(
      'message',
      'invalid arguments: expected object, got array',
    );
    // A string, however long, is shown as tool() shows it: quoted, and cut short.
    const long = (await runTool(plain, JSON.stringify('x'.repeat(100_000)))).error as Error;
    expect(long.message).to.match(/^invalid arguments: expected object, got "x+…"$/);
    expect(long.message.length).to.be.below(300);
    expect((await runTool(plain, '1e400')).error).to.have.property(
      'message',
      'invalid arguments: expected object, got an out-of-range number',
    );
    expect((await runTool(plain, '')).events.at(-1)?.result.output).to.equal('');
    expect(calls).to.deep.equal(['plain']);
  });
});

describe('MCP client: a tools/list that pages without end', () => {
  /**
   * A server whose tools/list gives `perPage` tools a page and a cursor each time: a new one, or
   * `repeatAt`'s again once that many pages have been served.
   */
  async function paging(perPage: number, options: McpClientOptions = {}, repeatAt?: number) {
    const server = new Server({ name: 'pager', version: '1.0.0' }, { capabilities: { tools: {} } });
    let pages = 0;
    server.setRequestHandler(ListToolsRequestSchema, () => {
      pages++;
      const tools = Array.from({ length: perPage }, (_, i) => def(`t${pages}_${i}`));
      const cursor = repeatAt !== undefined && pages > repeatAt ? `c${repeatAt}` : `c${pages}`;
      return { tools, nextCursor: cursor };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const failure = await connectMcp(clientSide, options).then(
      async (remote) => {
        await remote.close();
        return undefined;
      },
      (err: Error) => err.message,
    );
    return { failure, pages };
  }

  it('fails the listing past 100 pages, having asked for 100', async () => {
    expect(await paging(1)).to.deep.equal({
      failure: 'mcp: connect: tools/list: more than 100 pages (maxListPages)',
      pages: 100,
    });
  });

  it('fails the listing past 10,000 tools', async () => {
    expect(await paging(1_000)).to.deep.equal({
      failure: 'mcp: connect: tools/list: more than 10000 tools (maxTools)',
      pages: 11,
    });
  });

  it('takes maxListPages and maxTools as options', async () => {
    expect(await paging(1, { maxListPages: 3 })).to.deep.equal({
      failure: 'mcp: connect: tools/list: more than 3 pages (maxListPages)',
      pages: 3,
    });
    expect(await paging(5, { maxTools: 12 })).to.deep.equal({
      failure: 'mcp: connect: tools/list: more than 12 tools (maxTools)',
      pages: 3,
    });
  });

  it('ends the listing at a cursor the server gave before', async () => {
    expect(await paging(1, {}, 4)).to.deep.equal({
      failure: 'mcp: connect: tools/list: cursor repeats',
      pages: 5,
    });
  });
});
