/**
 * Consuming an MCP server: its tools become Tool values, run here one by one.
 *
 *   node --import tsx examples/mcp-client.ts                               # starts examples/mcp-server.ts
 *   node --import tsx examples/mcp-client.ts --http http://127.0.0.1:3000/mcp
 *
 * @module
 */
import { lastValueFrom } from 'rxjs';
import { connectMcp, httpTransport } from '../adapters/mcp-client/index.js';
import { stdioTransport } from '../adapters/mcp-stdio/index.js';
import { annotationsOf, CallContext, definition, type Tool } from '../index.js';

const flag = process.argv.indexOf('--http');
const transport =
  flag === -1
    ? stdioTransport({
        command: process.execPath,
        args: ['--import', 'tsx', new URL('./mcp-server.ts', import.meta.url).pathname],
      })
    : httpTransport(process.argv[flag + 1] ?? 'http://127.0.0.1:3000/mcp');

const remote = await connectMcp(transport, { prefix: 'demo' });
console.log(`connected to ${remote.serverInfo.name} ${remote.serverInfo.version}`);
for (const tool of remote.tools)
  console.log(JSON.stringify(definition(tool)), JSON.stringify(annotationsOf(tool)));

async function call(tool: Tool | undefined, args: object): Promise<void> {
  if (tool === undefined) return;
  const request = { id: `call-${tool.name}`, args: JSON.stringify(args) };
  try {
    const final = await lastValueFrom(tool.execute(request, new CallContext(request)));
    console.log(tool.name, '->', JSON.stringify(final.result.output));
  } catch (err) {
    console.log(tool.name, 'failed:', (err as Error).message);
  }
}

const named = (name: string): Tool | undefined =>
  remote.tools.find((t) => t.name === remote.name(name));
await call(named('upper'), { text: 'hello' });
await call(named('add'), { a: 2, b: 40 });
await call(named('add'), { a: 2 });
await call(named('tiny_image'), {});
await remote.close();
