/**
 * Every option of `agenttool`, in one table that both parses the command line (through node's
 * `util.parseArgs`, see args.ts) and prints the help (`agenttool help`, `agenttool <command> -h`).
 * An option's entry says which commands take it, the value it takes, what the help says of it,
 * and how its value lands in the parsed arguments, checked there with a one-line reason.
 *
 * @module
 */
import { parseHost } from '../adapters/mcp-server/http/http-access.js';
import { parseOrigin } from '../adapters/mcp-server/http/http-cors.js';
import { parseAnswer } from './answers.js';
import type { McpServerSpec, RunArgs, ServeArgs, UiArgs, WorkerArgs } from './args.js';
import { UsageError } from './usage-error.js';

/** The commands that take options. */
export type Command = 'run' | 'serve' | 'ui' | 'worker';

/** What options are applied to while a command line is parsed. */
export interface Parsing {
  readonly command: Command;
  readonly run: RunArgs;
  readonly serve: ServeArgs;
  readonly ui: UiArgs;
  readonly worker: WorkerArgs;
  /** The batch options' home: `ui` for `agenttool ui`, else `run`. */
  readonly batch: RunArgs | UiArgs;
  readonly mcp: McpServerSpec[];
  /** `--auth` was given: every `--mcp-url` server authorizes (see args.ts). */
  authorize: boolean;
}

/** One option. */
export interface Option {
  /** Its name, without the leading `--`. */
  readonly name: string;
  /** The value it takes, as the help shows it (`<n>`); undefined for a flag that takes none. */
  readonly value?: string;
  /**
   * For a flag whose value may be left out (`--tasks`, `--tasks redis://...`): whether the word
   * after it is its value. Its `value` shows it in brackets.
   */
  readonly optionalValue?: (word: string) => boolean;
  /** The commands that take it. */
  readonly commands: readonly Command[];
  /** What the help says of it. */
  readonly help: string;
  /** Applies its `value` (undefined when the command line gave none). */
  readonly apply: (p: Parsing, value: string | undefined) => void;
}

const ALL: readonly Command[] = ['run', 'ui', 'serve', 'worker'];
const BATCH: readonly Command[] = ['run', 'ui'];

function integer(option: string, value: string | undefined, min: number): number {
  if (value === undefined) throw new UsageError(`${option} needs a value`);
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min)
    throw new UsageError(
      `${option} takes a whole number of at least ${min}, got ${JSON.stringify(value)}`,
    );
  return n;
}

/** Splits a command line on spaces, honouring single and double quotes and backslashes. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += ch;
      started = true;
    }
  }
  if (quote !== undefined) throw new UsageError(`unterminated ${quote} in ${JSON.stringify(line)}`);
  if (started) words.push(word);
  return words;
}

/**
 * Every option, in the order the help lists them.
 *
 * Long on purpose (some 400 lines, which make this file the longest in cli/): one entry per
 * option, each a few lines, kept in one list so that what the parser accepts and what the help
 * prints cannot drift apart; split by command, an option several commands take would be written
 * twice.
 */
export const OPTIONS: readonly Option[] = [
  {
    name: 'mcp',
    value: '"<command>"',
    commands: ALL,
    help: "also offer the tools of this MCP server (stdio); repeatable; it gets the user's environment",
    apply: (p, line) => {
      if (line === undefined || line.trim() === '') throw new UsageError('--mcp needs a command');
      const [command, ...args] = splitCommand(line);
      p.mcp.push({ command: command!, args });
    },
  },
  {
    name: 'env',
    value: 'NAME=VALUE',
    commands: ALL,
    help: 'set a variable for the --mcp before it; repeatable',
    apply: (p, pair) => {
      const last = p.mcp.at(-1);
      if (last === undefined || last.url !== undefined)
        throw new UsageError('--env sets a variable of the --mcp server before it');
      const match = pair === undefined ? null : /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(pair);
      if (match === null) throw new UsageError('--env takes NAME=VALUE');
      (last.env ??= {})[match[1]!] = match[2]!;
    },
  },
  {
    name: 'mcp-url',
    value: '<url>',
    commands: ALL,
    help: 'also offer the tools of the MCP server at this URL (Streamable HTTP); repeatable',
    apply: (p, url) => {
      if (url === undefined || !/^https?:\/\//i.test(url) || !URL.canParse(url))
        throw new UsageError('--mcp-url takes an http:// or https:// URL');
      p.mcp.push({ command: '', args: [], url });
    },
  },
  {
    name: 'header',
    value: '"Name: value"',
    commands: ALL,
    help: 'send this header to the --mcp-url before it; repeatable',
    apply: (p, line) => {
      const last = p.mcp.at(-1);
      if (last?.url === undefined)
        throw new UsageError('--header sets a header of the --mcp-url server before it');
      const match =
        line === undefined ? null : /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/s.exec(line);
      if (match === null || /[\r\n]/.test(match[2]!))
        throw new UsageError('--header takes "Name: value" on one line');
      (last.headers ??= {})[match[1]!] = match[2]!.trim();
    },
  },
  {
    name: 'auth',
    commands: ALL,
    help:
      'authorize with OAuth to the --mcp-url servers that ask (a browser page; tokens kept in ' +
      '~/.config/agenttool/oauth.json, yours alone)',
    // Every --mcp-url server, wherever the flag stands (see connectServers).
    apply: (p) => void (p.authorize = true),
  },
  {
    name: 'prefix',
    value: '<p>',
    commands: ALL,
    help: 'name the tools of the --mcp or --mcp-url before it <p>__<name>',
    apply: (p, prefix) => {
      const last = p.mcp.at(-1);
      if (last === undefined)
        throw new UsageError('--prefix names the prefix of the --mcp or --mcp-url before it');
      if (prefix === undefined || !/^[A-Za-z0-9_-]+$/.test(prefix))
        throw new UsageError('--prefix takes letters, digits, "_" or "-"');
      last.prefix = prefix;
    },
  },
  {
    name: 'root',
    value: '<dir>',
    commands: ALL,
    help: 'a root offered to every MCP server; repeatable (default: the working directory)',
    apply: (p, dir) => {
      if (dir === undefined || dir === '') throw new UsageError('--root needs a directory');
      p.run.roots.push(dir);
    },
  },
  {
    name: 'max-parallel',
    value: '<n>',
    commands: BATCH,
    help: 'at most n calls at once (default 8)',
    apply: (p, v) => void (p.batch.maxParallel = integer('--max-parallel', v, 1)),
  },
  {
    name: 'sequential',
    commands: BATCH,
    help: 'one call at a time, in model order',
    apply: (p) => void (p.batch.sequential = true),
  },
  {
    name: 'timeout',
    value: '<ms>',
    commands: BATCH,
    help: 'cancel a call that runs longer',
    apply: (p, v) => void (p.batch.timeout = integer('--timeout', v, 1)),
  },
  {
    name: 'list',
    commands: ['run'],
    help: 'print the tool definitions (Open Responses function tools) and exit',
    apply: (p) => void (p.run.list = true),
  },
  {
    name: 'json',
    commands: ['run'],
    help: 'write every event as a JSON line on stdout instead of the live view',
    apply: (p) => void (p.run.json = true),
  },
  {
    name: 'answer',
    value: '<answer>',
    commands: ['run'],
    help:
      'answer the tools\' questions instead of asking: the form\'s content as a JSON object (\'{"answer": "blue"}\'), ' +
      'an MCP answer (\'{"action": "accept", "content": {...}}\'), decline or cancel; repeatable, used in the ' +
      'order the questions are asked (--sequential fixes that order), then declines; content that does not ' +
      'fit its question declines it, with one line on stderr',
    apply: (p, answer) => {
      if (answer === undefined) throw new UsageError('--answer needs a value');
      p.run.answers.push(parseAnswer(answer));
    },
  },
  {
    name: 'replay',
    value: '<file>',
    commands: ['ui'],
    help: 'show a saved "agenttool run --json" output instead of running a turn',
    apply: (p, file) => {
      if (file === undefined || file === '') throw new UsageError('--replay needs a file');
      p.ui.replay = file;
    },
  },
  {
    name: 'port',
    value: '<n>',
    commands: ['ui'],
    help: 'listen on this port (default: any free one); the address is printed',
    apply: (p, v) => {
      p.ui.port = integer('--port', v, 0);
      if (p.ui.port > 65535) throw new UsageError(`--port takes a port number, got ${p.ui.port}`);
    },
  },
  {
    name: 'no-open',
    commands: ['ui'],
    help: 'do not open the page in a browser',
    apply: (p) => void (p.ui.open = false),
  },
  {
    name: 'approve',
    commands: ['ui'],
    help: 'ask in the page before each call that is not read-only runs',
    apply: (p) => void (p.ui.approve = true),
  },
  {
    name: 'http',
    value: '<port>',
    commands: ['serve'],
    help: 'serve Streamable HTTP on this port (0: any free one) instead of stdio',
    apply: (p, v) => void (p.serve.http = integer('--http', v, 0)),
  },
  {
    name: 'host',
    value: '<addr>',
    commands: ['serve'],
    help: 'with --http: the address to listen on (default 127.0.0.1, this machine only)',
    apply: (p, host) => {
      if (host === undefined || host === '') throw new UsageError('--host needs an address');
      p.serve.host = host;
    },
  },
  {
    name: 'token',
    value: '<t>',
    commands: ['serve'],
    help: 'with --http: clients must send Authorization: Bearer <t> (default: $AGENTTOOL_TOKEN, else no token)',
    apply: (p, token) => {
      if (token === undefined || token.trim() === '') throw new UsageError('--token needs a value');
      p.serve.token = token;
    },
  },
  {
    name: 'max-sessions',
    value: '<n>',
    commands: ['serve'],
    help: 'with --http: at most n client sessions (default 1000)',
    apply: (p, v) => void (p.serve.maxSessions = integer('--max-sessions', v, 1)),
  },
  {
    name: 'stateless',
    commands: ['serve'],
    help: 'with --http: no sessions, every request on its own (for many instances behind a round-robin balancer)',
    apply: (p) => void (p.serve.stateless = true),
  },
  {
    name: 'max-calls',
    value: '<n>',
    commands: ['serve'],
    help: 'with --http: at most n tool calls at once; past it a call is answered busy (503, Retry-After) ...',
    apply: (p, v) => void (p.serve.maxCalls = integer('--max-calls', v, 1)),
  },
  {
    name: 'max-queued',
    value: '<n>',
    commands: ['serve'],
    help: '... unless one of n places in a queue is free',
    apply: (p, v) => void (p.serve.maxQueued = integer('--max-queued', v, 0)),
  },
  {
    name: 'question-timeout',
    value: '<ms>',
    commands: ['serve'],
    help: "with --http: how long a call's question waits for the client's answer before the call is cancelled (default 300000)",
    apply: (p, v) => void (p.serve.questionTimeout = integer('--question-timeout', v, 1)),
  },
  {
    name: 'max-held-calls',
    value: '<n>',
    commands: ['serve'],
    help: "with --http: at most n calls waiting for their client's answer (default 1000); past it a call that may ask is answered busy (503, Retry-After)",
    apply: (p, v) => void (p.serve.maxHeldCalls = integer('--max-held-calls', v, 1)),
  },
  {
    name: 'drain-grace',
    value: '<ms>',
    commands: ['serve'],
    help: 'with --http: on SIGTERM, running calls get this long to finish while new ones get 503 (default 30000)',
    apply: (p, v) => void (p.serve.drainGrace = integer('--drain-grace', v, 0)),
  },
  {
    name: 'instance',
    value: '<id>',
    commands: ['serve'],
    help: 'with --http: session ids read <id>.<uuid>, for a balancer that routes each session to its instance',
    apply: (p, instance) => {
      if (instance === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(instance))
        throw new UsageError(
          `--instance takes 1 to 64 letters, digits, _ or -, got ${JSON.stringify(instance ?? '')}`,
        );
      p.serve.instance = instance;
    },
  },
  {
    name: 'state-key',
    value: '<key>',
    commands: ['serve'],
    help:
      "with --http: signs the state of a call held for a client's answer; the same on every instance " +
      '(default: $AGENTTOOL_STATE_KEY, else random per process)',
    apply: (p, key) => {
      if (key === undefined || key.length < 32)
        throw new UsageError('--state-key takes a key of at least 32 characters');
      p.serve.stateKey = key;
    },
  },
  {
    name: 'advertise',
    value: '<url>',
    commands: ['serve'],
    help: "with --http: this instance's URL for the others, which forward a held call's retry to it (needs a state key)",
    apply: (p, url) => {
      if (url === undefined || !/^https?:\/\//.test(url) || !URL.canParse(url))
        throw new UsageError(
          `--advertise takes this instance's http(s) URL, got ${JSON.stringify(url ?? '')}`,
        );
      p.serve.advertise = url;
    },
  },
  {
    name: 'tasks',
    value: '[redis://host:port]',
    optionalValue: (word) => /^rediss?:\/\//.test(word),
    commands: ['serve'],
    help:
      'with --http: serve MCP tasks (2026-07-28 clients that declare the extension poll long calls by id), ' +
      'kept in memory, or in this Redis shared by every instance given it',
    apply: (p, url) => {
      if (url !== undefined && (!/^rediss?:\/\//.test(url) || !URL.canParse(url)))
        throw new UsageError(
          `--tasks takes nothing (memory) or a redis:// URL, got ${JSON.stringify(url)}`,
        );
      p.serve.tasks = url ?? 'memory';
    },
  },
  {
    name: 'task-lease',
    value: '<ms>',
    commands: ['serve'],
    help:
      "with --tasks: how long a running task is vouched for without its instance's renewal " +
      '(default 10000): a killed instance leaves its tasks reported failed within this time',
    apply: (p, v) => void (p.serve.taskLease = integer('--task-lease', v, 30)),
  },
  {
    name: 'max-tasks',
    value: '<n>',
    commands: ['serve'],
    help: 'with --tasks: at most n tasks running at once on this instance (default 1000); past it a call that would start one is answered busy (503, Retry-After)',
    apply: (p, v) => void (p.serve.maxTasks = integer('--max-tasks', v, 1)),
  },
  {
    name: 'allow-host',
    value: '<name>',
    commands: ['serve'],
    help: 'with --http: accept this Host (the name clients use, behind a proxy), besides loopback and the bound address; repeatable',
    apply: (p, host) => {
      if (host === undefined || parseHost(host) === undefined)
        throw new UsageError(
          `--allow-host takes a host name, optionally with :port, got ${JSON.stringify(host ?? '')}`,
        );
      p.serve.allowHosts.push(host);
    },
  },
  {
    name: 'redis',
    value: '<url>',
    commands: ['run', 'ui', 'worker'],
    help:
      'run, ui: send each call to the worker fleet on this Redis (redis://host:port) instead of running it here; ' +
      'worker: take calls from it',
    apply: (p, url) => {
      if (url === undefined || !/^rediss?:\/\//.test(url) || !URL.canParse(url))
        throw new UsageError(`--redis takes a redis:// URL, got ${JSON.stringify(url ?? '')}`);
      (p.command === 'worker' ? p.worker : p.batch).redis = url;
    },
  },
  {
    name: 'otlp',
    value: '<url>',
    commands: ALL,
    help:
      "export traces over OTLP/HTTP to this collector (http://host:4318, or its /v1/traces URL): each call's execute_tool span, MCP's tools/call spans; " +
      'needs @opentelemetry/sdk-trace, context-async-hooks, exporter-trace-otlp-http and resources',
    apply: (p, url) => {
      if (url === undefined || !/^https?:\/\//.test(url) || !URL.canParse(url))
        throw new UsageError(
          `--otlp takes an http:// or https:// URL, got ${JSON.stringify(url ?? '')}`,
        );
      ({ run: p.run, ui: p.ui, serve: p.serve, worker: p.worker })[p.command].otlp = url;
    },
  },
  {
    name: 'trace-url',
    value: '<url>',
    commands: ['ui'],
    help: 'with --otlp: link each call to its trace here, a URL with {traceId} (and {spanId}) in it, e.g. http://localhost:16686/trace/{traceId}',
    apply: (p, url) => {
      if (url === undefined || !/^https?:\/\//.test(url) || !url.includes('{traceId}'))
        throw new UsageError(
          `--trace-url takes an http:// or https:// URL with {traceId} in it, got ${JSON.stringify(url ?? '')}`,
        );
      p.ui.traceUrl = url;
    },
  },
  {
    name: 'queue',
    value: '<name>',
    commands: ['run', 'ui', 'worker'],
    help: "with --redis: the fleet's queue (default agenttool)",
    apply: (p, queue) => {
      if (queue === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(queue))
        throw new UsageError(
          `--queue takes 1 to 64 letters, digits, _ or -, got ${JSON.stringify(queue ?? '')}`,
        );
      (p.command === 'worker' ? p.worker : p.batch).queue = queue;
    },
  },
  {
    name: 'secret-file',
    value: '<path>',
    commands: ['run', 'ui', 'worker'],
    help:
      "with --redis: the fleet's shared secret (at least 32 bytes) is in this file (default: $AGENTTOOL_FLEET_SECRET); " +
      'calls and their ends are signed with it, and a worker runs only signed calls',
    apply: (p, path) => {
      if (path === undefined || path === '')
        throw new UsageError('--secret-file takes the path of a file that holds the secret');
      (p.command === 'worker' ? p.worker : p.batch).secretFile = path;
    },
  },
  {
    name: 'batch-id',
    value: '<id>',
    commands: ['run'],
    help: 'with --redis: the batch this run is (default: a new one, said on stderr); the id of an earlier run resumes it: calls that finished give their results, none runs twice',
    apply: (p, id) => {
      if (id === undefined || !/^[A-Za-z0-9_.:-]{1,128}$/.test(id))
        throw new UsageError(
          `--batch-id takes 1 to 128 letters, digits, _ . : or -, got ${JSON.stringify(id ?? '')}`,
        );
      p.run.batchId = id;
    },
  },
  {
    name: 'concurrency',
    value: '<n>',
    commands: ['worker'],
    help: 'calls this worker runs at once (default 1)',
    apply: (p, v) => void (p.worker.concurrency = integer('--concurrency', v, 1)),
  },
  {
    name: 'allow-origin',
    value: '<origin>',
    commands: ['serve'],
    help: 'with --http: pages of this origin may call the server from a browser (CORS; e.g. http://localhost:4200); repeatable',
    apply: (p, origin) => {
      if (origin === undefined || parseOrigin(origin) === undefined)
        throw new UsageError(
          `--allow-origin takes an origin such as https://app.example, got ${JSON.stringify(origin ?? '')}`,
        );
      p.serve.allowOrigins.push(origin);
    },
  },
];

/** The options by name. */
export const BY_NAME: ReadonlyMap<string, Option> = new Map(OPTIONS.map((o) => [o.name, o]));

/** What each command is, its usage line, and what follows its options in the help. */
const COMMANDS: Record<Command, { usage: string; what: string; notes: string }> = {
  run: {
    usage: 'agenttool run [turn.json | -] [options]',
    what: "replay a model turn's function_call items",
    notes:
      'The turn is Open Responses output items: a JSON array, a response object with "output", or ' +
      'JSON Lines on stdin. The function_call_output items are printed on stdout in model order. ' +
      'Exit status: 0 every call succeeded, 1 a call failed or was cancelled, 2 bad input. A tool ' +
      "that asks a question (ask_user, or an MCP server's elicitation) is asked on the terminal, " +
      'one field at a time above the live rows (Enter keeps the default; /decline, /cancel); a ' +
      'page to visit shows its URL and host, and Enter once back accepts it; without a terminal ' +
      'on stdin and stderr, and without --answer, it is declined at once.',
  },
  ui: {
    usage: 'agenttool ui [turn.json | --replay run.jsonl] [options]',
    what: 'watch a turn run live in a web page (loopback)',
    notes:
      'The page shows one row per call (state, progress, time, output) and a timeline with a lane ' +
      'per resource; it can run the turn again, cancel one call, or cancel the batch, approve or ' +
      "refuse a call, and answer a tool's question in its row. Ctrl-C stops the server.",
  },
  worker: {
    usage: 'agenttool worker --redis redis://host:port [options]',
    what: 'run the bundled tools (and those of --mcp servers) for the calls a fleet queue holds',
    notes:
      'Dispatchers (agenttool run --redis, or queueTools from agenttool/redis) send calls to the ' +
      'queue; each worker takes them --concurrency at a time. SIGTERM lets running calls finish; ' +
      'SIGINT cancels them (a call safe to run again goes back to the queue). Exit status: 0 once ' +
      'stopped, 2 bad input.',
  },
  serve: {
    usage: 'agenttool serve [options]',
    what: 'serve the bundled tools (and those of --mcp servers) over MCP, on stdio by default',
    notes:
      'Exit status: 0 once stopped (SIGTERM or SIGINT; with --http, after draining), 2 bad input.',
  },
};

/** `text` in lines of at most `width` characters, each after `indent` spaces but the first. */
function wrap(text: string, width: number, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

const COLUMN = 26;
const WIDTH = 100;

/** The help of `command`: its usage, every option it takes, and its notes. */
export function commandHelp(command: Command): string {
  const { usage, what, notes } = COMMANDS[command];
  const rows = OPTIONS.filter((o) => o.commands.includes(command)).map((o) => {
    const left = `  --${o.name}${o.value === undefined ? '' : ` ${o.value}`}`;
    const help = wrap(o.help, WIDTH - COLUMN, COLUMN);
    return left.length < COLUMN - 1
      ? `${left.padEnd(COLUMN)}${help}`
      : `${left}\n${' '.repeat(COLUMN)}${help}`;
  });
  return (
    `usage: ${usage}\n${wrap(what, WIDTH, 0)}\n\noptions:\n${rows.join('\n')}\n` +
    `${'  -h, --help'.padEnd(COLUMN)}this help\n\n${wrap(notes, WIDTH, 0)}\n`
  );
}

/** `agenttool help`: every command, each with its options. */
export function help(): string {
  const commands = (Object.keys(COMMANDS) as Command[]).map(
    (c) => `  ${COMMANDS[c].usage}\n      ${COMMANDS[c].what}`,
  );
  return (
    `agenttool: run tool calls the way an agent loop does\n\nusage:\n${commands.join('\n')}\n` +
    `  agenttool <command> --help   a command's options\n  agenttool --version\n\n` +
    (Object.keys(COMMANDS) as Command[]).map((c) => commandHelp(c)).join('\n')
  );
}
