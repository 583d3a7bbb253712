/**
 * The server the MCP conformance suite's server scenarios run against: every feature the package
 * claims (tools with text, image, audio, embedded-resource and mixed content, tool errors,
 * progress, JSON Schema 2020-12 schemas served as written, Host checks on loopback), built only
 * from the package's public API (`agenttool` and `agenttool/mcp/server`).
 *
 * Run alone: `node --import tsx test/conformance/everything-server.ts` prints its URL.
 */
import { createMcpServer, serveHttp, type McpHttpServer } from '../../adapters/mcp-server/index.js';
import { filePart, imagePart, parts, rawTool, textPart, textResult, tool } from '../../index.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ').toString('base64');
const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

const none = { type: 'object', properties: {} } as const;

export const conformanceTools = [
  tool({
    name: 'test_simple_text',
    description: 'Returns simple text.',
    execute: () => 'This is a simple text response for testing.',
  }),
  tool({
    name: 'test_image_content',
    description: 'Returns a 1x1 PNG.',
    execute: () => parts(imagePart({ data: PNG, mimeType: 'image/png' })),
  }),
  tool({
    name: 'test_audio_content',
    description: 'Returns a tiny WAV.',
    execute: () => parts(filePart({ data: WAV, mimeType: 'audio/wav' })),
  }),
  tool({
    name: 'test_embedded_resource',
    description: 'Returns an embedded resource.',
    execute: () =>
      parts(
        filePart({
          filename: 'embedded-resource.txt',
          data: base64('This is an embedded resource content.'),
          mimeType: 'text/plain',
        }),
      ),
  }),
  tool({
    name: 'test_multiple_content_types',
    description: 'Returns text, an image and a resource.',
    execute: () =>
      parts(
        textPart('Multiple content types test:'),
        imagePart({ data: PNG, mimeType: 'image/png' }),
        filePart({
          filename: 'mixed-content-resource.json',
          data: base64('{"test":"data","value":123}'),
          mimeType: 'application/json',
        }),
      ),
  }),
  tool({
    name: 'test_error_handling',
    description: 'Always fails.',
    execute: () => {
      throw new Error('This tool intentionally returns an error for testing');
    },
  }),
  tool({
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100.',
    async *execute() {
      for (const progress of [0, 50, 100]) {
        yield { progress, total: 100 };
        if (progress < 100) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return 'Progress complete';
    },
  }),
  rawTool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    parameters: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
    execute: (call) => textResult(`got ${call.args}`),
  }),
  rawTool({
    name: 'echo_args',
    description: 'Echoes its arguments.',
    parameters: none,
    execute: (call) => textResult(call.args),
  }),
];

/** Serves the conformance tools over Streamable HTTP on loopback, on any free port. */
export function serveConformance(): Promise<McpHttpServer> {
  return serveHttp({
    port: 0,
    host: '127.0.0.1',
    factory: () =>
      createMcpServer({ name: 'agenttool-conformance', version: '1.0.0' }, conformanceTools),
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const http = await serveConformance();
  process.stdout.write(`${http.url.href}\n`);
}
