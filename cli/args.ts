/**
 * Command-line parsing for `agenttool`: strict (every option is known, every value checked), so a
 * typo is an exit-2 error rather than a silently different run. The words are split by node's
 * `util.parseArgs`; what each option means and takes is the table in options.ts, which prints the
 * help too.
 *
 * @module
 */
import { parseArgs as splitWords } from 'node:util';
import type { ElicitResult } from '../index.js';
import { BY_NAME, OPTIONS, type Command, type Parsing } from './options.js';
import { UsageError } from './usage-error.js';

export { splitCommand } from './options.js';

/**
 * An MCP server to consume: one to start, from `--mcp "<command>"` (with `--env NAME=VALUE`), or
 * one at a URL, from `--mcp-url <url>` (with `--header "Name: value"`); either with `--prefix`.
 * `--prefix`, `--env` and `--header` apply to the server named just before them.
 */
export interface McpServerSpec {
  /** The program to start (stdio); "" for a server at a URL. */
  command: string;
  args: string[];
  /** The Streamable HTTP endpoint of a server at a URL; undefined for a stdio server. */
  url?: string;
  prefix?: string;
  /** A stdio server's variables, set on top of the user's environment. */
  env?: Record<string, string>;
  /** Headers a URL server gets on every request (an `Authorization`, say). */
  headers?: Record<string, string>;
  /** Authorize with OAuth when the URL server asks for it (`--auth`). */
  auth?: boolean;
}

/** The options of `agenttool run`. */
export interface RunArgs {
  command: 'run';
  /** The turn file; undefined or "-" reads JSONL (or one JSON document) from stdin. */
  input?: string;
  mcp: McpServerSpec[];
  /** The roots offered to MCP servers (`--root`, repeatable); empty: the working directory. */
  roots: string[];
  maxParallel?: number;
  sequential: boolean;
  timeout?: number;
  list: boolean;
  json: boolean;
  /** Scripted answers to the tools' questions (`--answer`, repeatable), in the order asked. */
  answers: ElicitResult[];
  /** Send each call to the worker fleet on this Redis instead of running it here (`--redis`). */
  redis?: string;
  /** With `--redis`: the fleet's queue (`--queue`; default `agenttool`). */
  queue?: string;
  /** With `--redis`: the file that holds the fleet's secret (`--secret-file`). */
  secretFile?: string;
  /** With `--redis`: the batch this run is, or resumes (`--batch-id`). */
  batchId?: string;
  /** Export traces over OTLP/HTTP to this collector (`--otlp`). */
  otlp?: string;
}

/** The options of `agenttool worker`. */
export interface WorkerArgs {
  command: 'worker';
  /** The Redis the fleet's queue lives in (`--redis`, required). */
  redis?: string;
  /** The queue (`--queue`; default `agenttool`). */
  queue?: string;
  /** The file that holds the fleet's secret (`--secret-file`). */
  secretFile?: string;
  /** Calls run at once (`--concurrency`; default 1). */
  concurrency?: number;
  /** Export traces over OTLP/HTTP to this collector (`--otlp`). */
  otlp?: string;
  mcp: McpServerSpec[];
  /** The roots offered to MCP servers (`--root`, repeatable); empty: the working directory. */
  roots: string[];
}

/** The options of `agenttool serve`. */
export interface ServeArgs {
  command: 'serve';
  /** Serve Streamable HTTP on this port instead of stdio (0: any free port). */
  http?: number;
  host: string;
  /** The bearer token HTTP clients must send (`--token`, else the AGENTTOOL_TOKEN variable). */
  token?: string;
  /** With `--http`: client sessions open at once, at most (`--max-sessions`; default 1000). */
  maxSessions?: number;
  /** With `--http`: serve without sessions, each request on its own (`--stateless`). */
  stateless: boolean;
  /** With `--http`: tool calls running at once, at most (`--max-calls`; default no limit). */
  maxCalls?: number;
  /** With `--http`: calls that may wait past `--max-calls` (`--max-queued`; default 0). */
  maxQueued?: number;
  /** With `--http`: ms a call's question waits for its answer (`--question-timeout`; default 5 min). */
  questionTimeout?: number;
  /** With `--http`: calls waiting for their client's answer, at most (`--max-held-calls`; default 1000). */
  maxHeldCalls?: number;
  /** With `--http`: ms running calls get to finish on SIGTERM (`--drain-grace`; default 30 s). */
  drainGrace?: number;
  /** With `--http`: the instance name that prefixes the session ids (`--instance`). */
  instance?: string;
  /** With `--http`: this instance's address for the others, in held calls' states (`--advertise`). */
  advertise?: string;
  /** With `--http`: the key that signs held calls' states (`--state-key`; default $AGENTTOOL_STATE_KEY). */
  stateKey?: string;
  /** With `--http`: Host names accepted besides loopback and the bound address (`--allow-host`). */
  allowHosts: string[];
  /** Origins whose pages may call the server from a browser (`--allow-origin`, repeatable). */
  allowOrigins: string[];
  /** With `--http`: serve MCP tasks, kept in memory or in the Redis at this URL (`--tasks`). */
  tasks?: 'memory' | string;
  /** With `--tasks`: tasks running at once on this instance, at most (`--max-tasks`; default 1000). */
  maxTasks?: number;
  /** With `--tasks`: the lease of a running task, in ms (`--task-lease`; default 10 s). */
  taskLease?: number;
  /** Export traces over OTLP/HTTP to this collector (`--otlp`). */
  otlp?: string;
  mcp: McpServerSpec[];
  /** The roots offered to MCP servers (`--root`, repeatable); empty: the working directory. */
  roots: string[];
}

/** The options of `agenttool ui`. */
export interface UiArgs {
  command: 'ui';
  /** The turn file; undefined or "-" reads it from stdin. */
  input?: string;
  /** A saved `agenttool run --json` to replay instead of running a turn. */
  replay?: string;
  /** The port to listen on (default 0: any free port); always on loopback. */
  port?: number;
  /** Open the page in a browser (default true; `--no-open`). */
  open: boolean;
  /** Ask in the page before each call that is not read-only runs (`--approve`; default false). */
  approve: boolean;
  mcp: McpServerSpec[];
  /** The roots offered to MCP servers (`--root`, repeatable); empty: the working directory. */
  roots: string[];
  maxParallel?: number;
  sequential: boolean;
  timeout?: number;
  /** Send each call to the worker fleet on this Redis (`--redis`). */
  redis?: string;
  /** With `--redis`: the fleet's queue (`--queue`). */
  queue?: string;
  /** With `--redis`: the file that holds the fleet's secret (`--secret-file`). */
  secretFile?: string;
  /** Export traces over OTLP/HTTP to this collector (`--otlp`). */
  otlp?: string;
  /** Where the page links a call's trace: a URL with `{traceId}` (`--trace-url`). */
  traceUrl?: string;
}

export type CliArgs =
  | RunArgs
  | ServeArgs
  | UiArgs
  | WorkerArgs
  /** `agenttool help`, or `agenttool <command> -h` (`of`: that command). */
  | { command: 'help'; of?: Command }
  | { command: 'version' };

/** What node's parser is told of every option: its type, so it knows which take a value. */
const WORDS = Object.fromEntries([
  ...OPTIONS.map(
    (o) =>
      [
        o.name,
        { type: o.value === undefined || o.optionalValue !== undefined ? 'boolean' : 'string' },
      ] as const,
  ),
  ['help', { type: 'boolean', short: 'h' }] as const,
]);

/** Parses the words after `agenttool`. Throws a UsageError for anything it does not know. */
export function parseArgs(argv: readonly string[]): CliArgs {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h')
    return { command: 'help' };
  if (command === '--version' || command === 'version') return { command: 'version' };
  if (command !== 'run' && command !== 'serve' && command !== 'ui' && command !== 'worker')
    throw new UsageError(`unknown command ${JSON.stringify(command)} (try: agenttool help)`);
  const p = emptyParsing(command);
  if (readWords(p, rest) === 'help') return { command: 'help', of: command };
  checkAuth(p);
  checkCombinations(p);
  if (command === 'worker') return p.worker;
  return command === 'run' ? p.run : command === 'ui' ? p.ui : p.serve;
}

/** What `command` starts from, each command's options at their defaults, before any word. */
function emptyParsing(command: Command): Parsing {
  const mcp: McpServerSpec[] = [];
  const roots: string[] = [];
  const run: RunArgs = {
    command: 'run',
    mcp,
    roots,
    sequential: false,
    list: false,
    json: false,
    answers: [],
  };
  const serve: ServeArgs = {
    command: 'serve',
    host: '127.0.0.1',
    allowOrigins: [],
    mcp,
    roots,
    stateless: false,
    allowHosts: [],
  };
  const ui: UiArgs = {
    command: 'ui',
    mcp,
    roots,
    open: true,
    approve: false,
    sequential: false,
  };
  // run and ui share the batch options; each value goes to the command's own.
  const worker: WorkerArgs = { command: 'worker', mcp, roots };
  const batch = command === 'ui' ? ui : run;
  return { command, run, serve, ui, worker, batch, mcp, authorize: false };
}

/**
 * Applies the words after the command to `p`, option by option, in order; 'help' for `-h` or
 * `--help` (what follows it is not read).
 */
function readWords(p: Parsing, words: readonly string[]): 'help' | undefined {
  // Not node's strict mode: its messages name no command, and an option's value may start with -.
  const { tokens } = splitWords({
    args: [...words],
    options: WORDS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  let terminated = false;
  /** The flag just read whose value may follow it as the next word (see Option.optionalValue). */
  let awaiting: (typeof OPTIONS)[number] | undefined;
  for (const token of tokens) {
    const flag = awaiting;
    awaiting = undefined;
    if (token.kind === 'option-terminator') {
      terminated = true;
      continue;
    }
    if (token.kind === 'positional') {
      if (flag?.optionalValue?.(token.value) === true && !terminated) {
        flag.apply(p, token.value);
        continue;
      }
      if (!terminated && token.value.startsWith('-') && token.value !== '-')
        throw new UsageError(`unknown option ${JSON.stringify(token.value)}`);
      takeInput(p, token.value);
      continue;
    }
    if (token.name === 'help') return 'help';
    const option = optionOf(p.command, token.name, token.rawName, token.value);
    if (option.optionalValue !== undefined && token.value === undefined) awaiting = option;
    option.apply(p, token.value);
  }
  return undefined;
}

/** A word that is no option: the turn file, for the commands that read one. */
function takeInput(p: Parsing, word: string): void {
  if (p.command === 'serve' || p.command === 'worker')
    throw new UsageError(`unexpected argument ${JSON.stringify(word)}`);
  if (p.batch.input !== undefined) throw new UsageError('give one turn file at most');
  p.batch.input = word;
}

/** The option `rawName` names, once it is known to be one of `command`'s that takes `value`. */
function optionOf(
  command: Command,
  name: string,
  rawName: string,
  value: string | undefined,
): (typeof OPTIONS)[number] {
  const option = BY_NAME.get(name);
  if (option === undefined || rawName.length === 2)
    throw new UsageError(`unknown option ${JSON.stringify(rawName)}`);
  if (!option.commands.includes(command))
    throw new UsageError(
      `${rawName} is an option of ${option.commands.map((w) => `"agenttool ${w}"`).join(' and ')}`,
    );
  if (option.value === undefined && value !== undefined)
    throw new UsageError(`${rawName} takes no value`);
  return option;
}

/** `--auth`: every `--mcp-url` server authorizes; there must be one. */
function checkAuth(p: Parsing): void {
  if (!p.authorize) return;
  if (!p.mcp.some((spec) => spec.url !== undefined))
    throw new UsageError('--auth applies to --mcp-url servers; none is given');
  for (const spec of p.mcp) if (spec.url !== undefined) spec.auth = true;
}

/** The options that apply only with another one, each checked in this order. */
function checkCombinations(p: Parsing): void {
  if (p.ui.replay !== undefined && p.ui.input !== undefined)
    throw new UsageError('give a turn file or --replay, not both');
  checkServe(p.serve);
  if (p.ui.traceUrl !== undefined && p.ui.otlp === undefined)
    throw new UsageError('--trace-url applies with --otlp only');
  if (p.command === 'worker' && p.worker.redis === undefined)
    throw new UsageError('agenttool worker needs --redis redis://HOST:PORT');
  if (p.batch.queue !== undefined && p.batch.redis === undefined)
    throw new UsageError('--queue applies with --redis only');
  if (p.batch.secretFile !== undefined && p.batch.redis === undefined)
    throw new UsageError('--secret-file applies with --redis only');
  if (p.run.batchId !== undefined && p.run.redis === undefined)
    throw new UsageError('--batch-id applies with --redis only');
}

/** `agenttool serve`'s options that apply with `--http`, `--max-calls` or `--tasks` only. */
function checkServe(serve: ServeArgs): void {
  if (serve.token !== undefined && serve.http === undefined)
    throw new UsageError('--token applies to --http only');
  if (serve.maxSessions !== undefined && serve.http === undefined)
    throw new UsageError('--max-sessions applies to --http only');
  for (const [set, name] of [
    [serve.stateless, '--stateless'],
    [serve.maxCalls !== undefined, '--max-calls'],
    [serve.maxQueued !== undefined, '--max-queued'],
    [serve.drainGrace !== undefined, '--drain-grace'],
    [serve.questionTimeout !== undefined, '--question-timeout'],
    [serve.maxHeldCalls !== undefined, '--max-held-calls'],
    [serve.instance !== undefined, '--instance'],
    [serve.advertise !== undefined, '--advertise'],
    [serve.stateKey !== undefined, '--state-key'],
    [serve.allowHosts.length > 0, '--allow-host'],
    [serve.tasks !== undefined, '--tasks'],
  ] as const)
    if (set && serve.http === undefined) throw new UsageError(`${name} applies to --http only`);
  if (serve.maxQueued !== undefined && serve.maxCalls === undefined)
    throw new UsageError('--max-queued applies with --max-calls only');
  if (serve.taskLease !== undefined && serve.tasks === undefined)
    throw new UsageError('--task-lease applies with --tasks only');
  if (serve.maxTasks !== undefined && serve.tasks === undefined)
    throw new UsageError('--max-tasks applies with --tasks only');
  if (serve.allowOrigins.length > 0 && serve.http === undefined)
    throw new UsageError('--allow-origin applies to --http only');
}
