/**
 * The server the MCP conformance suite's server scenarios run against: every feature the package
 * claims (tools with text, image, audio, embedded-resource and mixed content, tool errors,
 * progress, JSON Schema 2020-12 schemas served as written, Host checks on loopback, questions
 * asked of the client with `context.elicit`: defaults and every enum form), built only
 * from the package's public API (`agenttool` and `agenttool/mcp/server`).
 *
 * Run alone: `node --import tsx test/conformance/everything-server.ts` prints its URL.
 */
import { EMPTY } from 'rxjs';
import {
  createMcpServer,
  memoryTaskStore,
  serveHttp,
  type McpHttpServer,
} from '../../adapters/mcp-server/index.js';
import { z } from 'zod';
import {
  filePart,
  imagePart,
  parts,
  rawTool,
  textPart,
  textResult,
  tool,
  type ElicitField,
} from '../../index.js';

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ').toString('base64');
const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

const none = { type: 'object', properties: {} } as const;

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });
}

/** The text the elicitation scenarios expect: the action and the content. */
const completed = (answer: { action: string; content?: unknown }): string =>
  `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;

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
  tool({
    name: 'test_elicitation',
    description: 'Asks the client for a username and an email.',
    parameters: z.object({ message: z.string() }),
    execute: async ({ message }, context) => {
      const answer = await context.elicit({
        message,
        schema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return `User response: ${JSON.stringify(answer)}`;
    },
  }),
  tool({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Asks with a default for every primitive type.',
    execute: async (_args, context) => {
      const answer = await context.elicit({
        message: 'Please review and update the form fields with defaults',
        schema: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'User name', default: 'John Doe' },
            age: { type: 'integer', description: 'User age', default: 30 },
            score: { type: 'number', description: 'User score', default: 95.5 },
            status: {
              type: 'string',
              description: 'User status',
              enum: ['active', 'inactive', 'pending'],
              default: 'active',
            },
            verified: { type: 'boolean', description: 'Verification status', default: true },
          },
        },
      });
      return completed(answer);
    },
  }),
  tool({
    name: 'test_elicitation_sep1330_enums',
    description: 'Asks with every enum form.',
    execute: async (_args, context) => {
      const answer = await context.elicit({
        message: 'Please select options from the enum fields',
        schema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            // MCP's titled multiple choice; ElicitField types the untitled one, and the server
            // sends the schema as written.
            titledMulti: {
              type: 'array',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            } as unknown as ElicitField,
          },
        },
      });
      return completed(answer);
    },
  }),
  // MCP 2026-07-28: questions answered through input_required and a retry (docs/mcp.md).
  tool({
    name: 'test_input_required_result_elicitation',
    description: 'Asks for a name, then greets.',
    parameters: z.object({}),
    execute: async (_args, context) => {
      const answer = await context.elicit({
        key: 'user_name',
        message: 'What is your name?',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      return answer.action === 'accept' ? `Hello, ${String(answer.content.name)}!` : answer.action;
    },
  }),
  tool({
    name: 'test_input_required_result_request_state',
    description: 'Asks for a confirmation; its retry is checked by the signed state.',
    parameters: z.object({}),
    execute: async (_args, context) => {
      const answer = await context.elicit({
        key: 'confirm',
        message: 'Please confirm',
        schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      });
      // Reached only through a retry whose requestState the server verified.
      return `state-ok: ${answer.action}`;
    },
  }),
  tool({
    name: 'test_input_required_result_multi_round',
    description: 'Asks two questions, one after the other.',
    parameters: z.object({}),
    execute: async (_args, context) => {
      const name = await context.elicit({
        key: 'step1',
        message: 'Step 1: What is your name?',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      const color = await context.elicit({
        key: 'step2',
        message: 'Step 2: What is your favorite color?',
        schema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
      });
      return `name: ${JSON.stringify(name)}, color: ${JSON.stringify(color)}`;
    },
  }),
  tool({
    name: 'test_input_required_result_tampered_state',
    description: 'Asks for an ok; a tampered state is refused before it resumes.',
    parameters: z.object({}),
    execute: async (_args, context) => {
      const answer = await context.elicit({
        key: 'ok',
        message: 'OK?',
        schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      });
      return answer.action;
    },
  }),
  tool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks only what the client declared it can answer.',
    parameters: z.object({}),
    execute: async (_args, context) => {
      // Asked of a client that declared elicitation; declined at once otherwise.
      const answer = await context.elicit({
        key: 'user_name',
        message: 'What is your name?',
        schema: { type: 'object', properties: { name: { type: 'string' } } },
      });
      return answer.action;
    },
  }),
  tool({
    name: 'test_streaming_elicitation',
    description: 'Asks a question mid-call (a modern client gets input_required, never a request).',
    parameters: z.object({}),
    execute: async (_args, context) => {
      const answer = await context.elicit({
        message: 'Go on?',
        schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      });
      return answer.action;
    },
  }),
  tool({
    name: 'test_logging_tool',
    description: 'Works without logging: agenttool sends no log messages.',
    parameters: z.object({}),
    execute: () => 'done',
  }),
  tool({
    name: 'test_custom_header',
    description: 'Runs a query in a region, mirrored into the Mcp-Param-Region header.',
    parameters: z.object({
      region: z.string().meta({ 'x-mcp-header': 'Region' }),
      query: z.string(),
    }),
    execute: ({ region, query }) => `${query} in ${region}`,
  }),
  tool({
    name: 'test_missing_capability',
    description: 'Needs a client that declared sampling (requiredCapabilities): refused otherwise.',
    parameters: z.object({}),
    execute: () => 'ran with a client that declared sampling',
  }),
  // The tasks extension (`task: true`): docs/mcp.md.
  tool({
    name: 'greet',
    description: 'Greets, at once (never a task).',
    parameters: z.object({ name: z.string() }),
    execute: ({ name }) => `Hello, ${name}!`,
  }),
  tool({
    name: 'slow_compute',
    description: 'Sleeps `seconds`, then answers; a task for a client that takes tasks.',
    parameters: z.object({ seconds: z.number().min(0).max(600), label: z.string().optional() }),
    task: true,
    execute: async ({ seconds, label }, context) => {
      await pause(seconds * 1000, context.signal);
      return `computed ${label ?? ''} after ${seconds} s`;
    },
  }),
  tool({
    name: 'failing_job',
    description: 'Fails after a second, as a tool fails (the model reads why); only as a task.',
    parameters: z.object({}),
    task: 'required',
    execute: async (_args, context) => {
      await pause(1000, context.signal);
      throw new Error('the job failed');
    },
  }),
  rawTool({
    name: 'protocol_error_job',
    description: 'Breaks the tool contract (ends without a result): a failed task.',
    parameters: none,
    task: true,
    execute: () => EMPTY,
  }),
  tool({
    name: 'confirm_delete',
    description: 'Asks to confirm deleting `filename`, then answers.',
    parameters: z.object({ filename: z.string() }),
    task: true,
    execute: async ({ filename }, context) => {
      // Looks the file up first: the question comes once the call is under way, so through its
      // task (a question asked before that would be asked in the request).
      await pause(20, context.signal);
      const answer = await context.elicit({
        message: `Delete ${filename}?`,
        schema: {
          type: 'object',
          properties: { confirm: { type: 'boolean' } },
          required: ['confirm'],
        },
      });
      return answer.action === 'accept' && answer.content.confirm === true
        ? `deleted ${filename}`
        : `kept ${filename}`;
    },
  }),
  tool({
    name: 'multi_input',
    description: 'Asks two questions at once.',
    parameters: z.object({}),
    task: true,
    execute: async (_args, context) => {
      const ask = (message: string) =>
        context.elicit({
          message,
          schema: {
            type: 'object',
            properties: { name: { type: 'string' }, confirm: { type: 'boolean' } },
          },
        });
      await pause(20, context.signal);
      const [first, second] = await Promise.all([ask('First?'), ask('Second?')]);
      return `${first.action} ${second.action}`;
    },
  }),
  tool({
    name: 'test_tool_with_task',
    description:
      'Asks for a name before anything else (in the request), then greets as a task; only as a task.',
    parameters: z.object({}),
    task: 'required',
    execute: async (_args, context) => {
      const answer = await context.elicit({
        key: 'user_name',
        message: 'What is your name?',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      return answer.action === 'accept' ? `Hello, ${String(answer.content.name)}!` : answer.action;
    },
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
  const store = memoryTaskStore();
  return serveHttp({
    port: 0,
    host: '127.0.0.1',
    factory: () =>
      createMcpServer({ name: 'agenttool-conformance', version: '1.0.0' }, conformanceTools, {
        requiredCapabilities: { test_missing_capability: { sampling: {} } },
        tasks: { store },
      }),
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const http = await serveConformance();
  process.stdout.write(`${http.url}\n`);
}
