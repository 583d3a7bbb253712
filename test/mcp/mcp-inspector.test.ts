import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { TINY_PNG } from '../../examples/mcp-tools.js';
import { node22 } from '../support/conformance.js';
import { scaled } from '../support/time.js';

const require = createRequire(import.meta.url);
// The MCP Inspector (v2), whose CLI needs Node 22.19 or later: it runs under the Node 22 that
// test/support/node22 installs, and starts the example server with the project's Node.
const manifest = require.resolve('@modelcontextprotocol/inspector/package.json');
const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin[
  'mcp-inspector'
]!;
const inspector = join(dirname(manifest), bin);
const examples = join(import.meta.dirname, '..', '..', 'examples');
/** The CLI's exit code when the tool answered with `isError`. */
const TOOL_IS_ERROR = 5;

/**
 * Runs the Inspector CLI against the example stdio server and parses the result it prints. A
 * tool's `isError` answer is printed too, the CLI then exiting with its code for it (5).
 */
function inspect(...args: string[]): Promise<Record<string, unknown>> {
  // Five servers start at once, each compiling the example with tsx: on a busy machine that
  // takes longer than the CLI's 15 s default to connect. Both clocks are scaled by
  // TEST_TIME_SCALE (test/support/time.ts).
  const argv = [
    inspector,
    '--cli',
    '--connect-timeout',
    String(scaled(50_000)),
    process.execPath,
    '--import',
    'tsx',
    'mcp-server.ts',
    ...args,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      node22(),
      argv,
      { cwd: examples, timeout: scaled(60_000) },
      (error, stdout, stderr) => {
        if (error !== null && error.code !== TOOL_IS_ERROR)
          reject(new Error(`${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as Record<string, unknown>);
      },
    );
  });
}

describe('the example MCP server, driven by the MCP Inspector (v2) CLI over stdio', function () {
  this.timeout(scaled(90_000));
  let list: Record<string, unknown>;
  let upper: Record<string, unknown>;
  let add: Record<string, unknown>;
  let image: Record<string, unknown>;
  let invalid: Record<string, unknown>;

  before(async () => {
    // One Inspector run per request, all at once: each starts its own server.
    [list, upper, add, image, invalid] = await Promise.all([
      inspect('--method', 'tools/list'),
      inspect('--method', 'tools/call', '--tool-name', 'upper', '--tool-arg', 'text=shout'),
      inspect('--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=40'),
      inspect('--method', 'tools/call', '--tool-name', 'tiny_image'),
      inspect('--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'c=3'),
    ]);
  });

  it('lists the tools, with add under its strict schema', () => {
    const tools = list.tools as { name: string; inputSchema: unknown; annotations?: unknown }[];
    expect(tools.map((t) => t.name)).to.deep.equal(['upper', 'add', 'tiny_image']);
    expect(tools[1]!.inputSchema).to.deep.equal({
      type: 'object',
      properties: {
        a: { type: 'number', description: 'The first number' },
        b: { type: 'number', description: 'The second number' },
      },
      required: ['a', 'b'],
      additionalProperties: false,
    });
    expect(tools[1]!.annotations).to.deep.equal({ readOnlyHint: true });
  });

  it('calls a text tool', () => {
    expect(upper).to.deep.equal({ content: [{ type: 'text', text: 'SHOUT' }] });
  });

  it('calls a tool whose answer is JSON', () => {
    expect(add).to.deep.equal({ content: [{ type: 'text', text: '{"sum":42}' }] });
  });

  it('calls a tool whose answer is an image', () => {
    expect(image).to.deep.equal({
      content: [{ type: 'image', data: TINY_PNG, mimeType: 'image/png' }],
    });
  });

  it('answers invalid arguments with isError and the problem, not a protocol error', () => {
    expect(invalid.isError).to.equal(true);
    const text = (invalid.content as { text: string }[])[0]!.text;
    expect(text).to.match(/^Error: invalid arguments: /);
  });
});
