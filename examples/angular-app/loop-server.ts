/**
 * The server side of a chat front driven by `agentLoop` over AG-UI: each run the page posts (an
 * AG-UI `RunAgentInput`) is a loop on the `openai` client, answered with `pipeAgUiEvents`. The
 * model is a recorded conversation replayed on loopback (examples/replay-model.ts), so it runs
 * offline: text, a call that reports progress, a call a person approves, a call whose tool asks a
 * question. The page answers an approval with `POST /approve` `{ callId, approved }` and a
 * question with `POST /answer` `{ id, answer }` (the question's id on the wire, `WireQuestions`).
 *
 *     node --import tsx examples/angular-app/loop-server.ts [port] [allowed origin]
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import { Subject } from 'rxjs';
import { z } from 'zod';
import { agentLoop, tool, ToolSet, type Approval, type ResponsesItem } from '../../index.js';
import { pipeAgUiEvents, WireQuestions } from '../../adapters/wire/index.js';
import { ReplayModel, responsesEvents } from '../replay-model.js';

const tools = new ToolSet([
  tool({
    name: 'weather',
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }, context) => {
      for (let step = 1; step <= 3; step++) {
        context.progress({ progress: step, total: 4, message: `asking station ${step}` });
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      return `light snow in ${city}, -3 °C`;
    },
  }),
  tool({
    name: 'deploy',
    description: 'Deploys a service; a person approves it first',
    parameters: z.object({ service: z.string() }),
    execute: ({ service }) => `deployed ${service}`,
  }),
  tool({
    name: 'pick_env',
    description: 'Asks the person which environment to use',
    parameters: z.object({}),
    execute: async (_args, context) => {
      const answer = await context.elicit({
        message: 'Which environment?',
        schema: {
          type: 'object',
          properties: { env: { type: 'string', enum: ['staging', 'production'] } },
          required: ['env'],
        },
      });
      return answer.action === 'accept' ? `env: ${String(answer.content.env)}` : 'no environment';
    },
  }),
]);

/** The tools a person approves before they run. */
const ASKS_APPROVAL = new Set(['deploy']);

/** A running loop server. */
export interface LoopServer {
  /** Where the page posts its runs, e.g. `http://127.0.0.1:4300/agui`. */
  readonly url: URL;
  close(): Promise<void>;
}

/**
 * Serves the loop on 127.0.0.1 (`port` 0: any free port), answering the page at `allowOrigin`
 * across origins (CORS). `POST /agui` runs the conversation once per request.
 */
export async function serveLoop(port = 0, allowOrigin = '*'): Promise<LoopServer> {
  const approvals = new Map<string, Subject<Approval>>();
  const questions = new WireQuestions();
  const replays = new Set<ReplayModel>();
  const cors = {
    'access-control-allow-origin': allowOrigin,
    'access-control-allow-headers': 'content-type, accept',
    'access-control-allow-methods': 'POST, OPTIONS',
  };

  async function run(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const input = (await body(req)) as { threadId: string; runId: string; messages?: unknown[] };
    const replay = new ReplayModel(recorded());
    replays.add(replay);
    const client = new OpenAI({ apiKey: 'replayed', baseURL: await replay.start(), maxRetries: 0 });
    const loop$ = conversation(client, approvals, questions);
    const subscription = pipeAgUiEvents(loop$, res, {
      threadId: input.threadId,
      runId: input.runId,
      headers: cors,
    });
    subscription.add(() => {
      replays.delete(replay);
      void replay.stop();
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'OPTIONS') return void res.writeHead(204, cors).end();
    if (req.method !== 'POST') return void res.writeHead(405, cors).end();
    if (path === '/agui') return run(req, res);
    if (path === '/approve') {
      const { callId, approved } = (await body(req)) as { callId: string; approved: boolean };
      const waiting = approvals.get(callId);
      approvals.delete(callId);
      waiting?.next(approved === true);
      return void res.writeHead(waiting === undefined ? 404 : 204, cors).end();
    }
    if (path === '/answer') {
      const { id, answer } = (await body(req)) as { id: string; answer: never };
      return void res.writeHead(questions.answer(id, answer) ? 204 : 404, cors).end();
    }
    res.writeHead(404, cors).end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(400, cors);
      res.end(error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: new URL(`http://127.0.0.1:${bound}/agui`),
    close: async () => {
      await Promise.all([...replays].map((replay) => replay.stop()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The conversation the page sees: the replayed model's turns, with `deploy` waiting in
 * `approvals` for the person's word and the tools' questions answered through `questions`.
 */
function conversation(
  client: OpenAI,
  approvals: Map<string, Subject<Approval>>,
  questions: WireQuestions,
) {
  return agentLoop({
    model: (items, signal) =>
      client.responses.create(
        {
          model: 'gpt-5-mini',
          input: items as OpenAI.Responses.ResponseInput,
          tools: tools.definitions(),
          stream: true,
        },
        { signal },
      ),
    tools,
    input: [
      { role: 'user', content: 'Weather in Oslo, then deploy api.' },
    ] satisfies ResponsesItem[],
    approve: (job) => {
      if (!ASKS_APPROVAL.has(job.tool.name)) return true;
      const answer = new Subject<Approval>();
      approvals.set(job.call.id, answer);
      return answer;
    },
    elicitor: questions.elicitor,
  });
}

/** A request's JSON body. */
async function body(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += (chunk as Buffer).toString();
  return JSON.parse(text) as unknown;
}

/** The conversation replayed: text and two calls, then a question, then the answer. */
function recorded() {
  const call = (index: number, id: string, name: string, args: string) => {
    const item = { type: 'function_call', id: `fc_${id}`, call_id: id, name, arguments: args };
    return [
      {
        type: 'response.output_item.added',
        output_index: index,
        item: { ...item, arguments: '', status: 'in_progress' },
      },
      {
        type: 'response.function_call_arguments.delta',
        item_id: item.id,
        output_index: index,
        delta: args,
      },
      {
        type: 'response.output_item.done',
        output_index: index,
        item: { ...item, status: 'completed' },
      },
    ];
  };
  const text = (id: string, delta: string) => ({
    type: 'response.output_text.delta',
    item_id: id,
    output_index: 0,
    content_index: 0,
    delta,
  });
  const completed = { type: 'response.completed', response: { status: 'completed', output: [] } };
  return [
    {
      events: responsesEvents([
        text('msg_1', 'Looking at the weather, '),
        text('msg_1', 'then deploying.'),
        ...call(1, 'c1', 'weather', '{"city":"Oslo"}'),
        ...call(2, 'c2', 'deploy', '{"service":"api"}'),
        completed,
      ]),
    },
    { events: responsesEvents([...call(0, 'c3', 'pick_env', '{}'), completed]) },
    {
      events: responsesEvents([text('msg_3', 'Oslo has light snow; api is deployed.'), completed]),
    },
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const loop = await serveLoop(Number(process.argv[2] ?? 4300), process.argv[3] ?? '*');
  process.stdout.write(`the loop answers AG-UI runs at ${loop.url.href} (Ctrl-C stops)\n`);
}
