/**
 * Command-line parsing for `agenttool`: a small, strict parser (every option is known, every value
 * checked), so a typo is an exit-2 error rather than a silently different run.
 *
 * @module
 */
import { parseHost } from '../adapters/mcp-server/http-access.js';
import { parseOrigin } from '../adapters/mcp-server/http-cors.js';
import type { ElicitResult } from '../index.js';
import { parseAnswer } from './answers.js';
import { UsageError } from './usage-error.js';

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
}

export type CliArgs = RunArgs | ServeArgs | UiArgs | { command: 'help' } | { command: 'version' };

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

function integer(option: string, value: string | undefined, min: number): number {
  if (value === undefined) throw new UsageError(`${option} needs a value`);
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min)
    throw new UsageError(
      `${option} takes a whole number of at least ${min}, got ${JSON.stringify(value)}`,
    );
  return n;
}

/** Parses the words after `agenttool`. Throws a UsageError for anything it does not know. */
export function parseArgs(argv: readonly string[]): CliArgs {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h')
    return { command: 'help' };
  if (command === '--version' || command === 'version') return { command: 'version' };
  if (command !== 'run' && command !== 'serve' && command !== 'ui')
    throw new UsageError(`unknown command ${JSON.stringify(command)} (try: agenttool help)`);

  const mcp: McpServerSpec[] = [];
  const roots: string[] = [];
  let authorize = false;
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
  // run and ui share the batch options; each parsed value goes to both, one of them is returned.
  const batch = command === 'ui' ? ui : run;
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    const [flag, inline] =
      word.startsWith('--') && word.includes('=')
        ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]
        : [word, undefined];
    const value = (): string | undefined => inline ?? rest[++i];
    const only = (...which: ('run' | 'serve' | 'ui')[]): void => {
      if (!(which as string[]).includes(command))
        throw new UsageError(
          `${flag} is an option of ${which.map((w) => `"agenttool ${w}"`).join(' and ')}`,
        );
    };
    switch (flag) {
      case '--mcp': {
        const line = value();
        if (line === undefined || line.trim() === '') throw new UsageError('--mcp needs a command');
        const [cmd, ...args] = splitCommand(line);
        mcp.push({ command: cmd!, args });
        break;
      }
      case '--mcp-url': {
        const url = value();
        if (url === undefined || !/^https?:\/\//i.test(url) || !URL.canParse(url))
          throw new UsageError('--mcp-url takes an http:// or https:// URL');
        mcp.push({ command: '', args: [], url });
        break;
      }
      case '--env': {
        const pair = value();
        const last = mcp.at(-1);
        if (last === undefined || last.url !== undefined)
          throw new UsageError('--env sets a variable of the --mcp server before it');
        const match = pair === undefined ? null : /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(pair);
        if (match === null) throw new UsageError('--env takes NAME=VALUE');
        (last.env ??= {})[match[1]!] = match[2]!;
        break;
      }
      case '--header': {
        const line = value();
        const last = mcp.at(-1);
        if (last?.url === undefined)
          throw new UsageError('--header sets a header of the --mcp-url server before it');
        const match =
          line === undefined ? null : /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/s.exec(line);
        if (match === null || /[\r\n]/.test(match[2]!))
          throw new UsageError('--header takes "Name: value" on one line');
        (last.headers ??= {})[match[1]!] = match[2]!.trim();
        break;
      }
      case '--auth':
        // Every --mcp-url server, wherever the flag stands (see connectServers).
        authorize = true;
        break;
      case '--root': {
        const dir = value();
        if (dir === undefined || dir === '') throw new UsageError('--root needs a directory');
        roots.push(dir);
        break;
      }
      case '--prefix': {
        const prefix = value();
        const last = mcp.at(-1);
        if (last === undefined)
          throw new UsageError('--prefix names the prefix of the --mcp or --mcp-url before it');
        if (prefix === undefined || !/^[A-Za-z0-9_-]+$/.test(prefix))
          throw new UsageError('--prefix takes letters, digits, "_" or "-"');
        last.prefix = prefix;
        break;
      }
      case '--max-parallel':
        only('run', 'ui');
        batch.maxParallel = integer(flag, value(), 1);
        break;
      case '--timeout':
        only('run', 'ui');
        batch.timeout = integer(flag, value(), 1);
        break;
      case '--sequential':
        only('run', 'ui');
        batch.sequential = true;
        break;
      case '--replay': {
        only('ui');
        const file = value();
        if (file === undefined || file === '') throw new UsageError('--replay needs a file');
        ui.replay = file;
        break;
      }
      case '--port':
        only('ui');
        ui.port = integer(flag, value(), 0);
        if (ui.port > 65535) throw new UsageError(`--port takes a port number, got ${ui.port}`);
        break;
      case '--no-open':
        only('ui');
        ui.open = false;
        break;
      case '--approve':
        only('ui');
        ui.approve = true;
        break;
      case '--list':
        only('run');
        run.list = true;
        break;
      case '--json':
        only('run');
        run.json = true;
        break;
      case '--answer': {
        only('run');
        const answer = value();
        if (answer === undefined) throw new UsageError('--answer needs a value');
        run.answers.push(parseAnswer(answer));
        break;
      }
      case '--http':
        only('serve');
        serve.http = integer(flag, value(), 0);
        break;
      case '--host': {
        only('serve');
        const host = value();
        if (host === undefined || host === '') throw new UsageError('--host needs an address');
        serve.host = host;
        break;
      }
      case '--token': {
        only('serve');
        const token = value();
        if (token === undefined || token.trim() === '')
          throw new UsageError('--token needs a value');
        serve.token = token;
        break;
      }
      case '--max-sessions':
        only('serve');
        serve.maxSessions = integer(flag, value(), 1);
        break;
      case '--stateless':
        only('serve');
        serve.stateless = true;
        break;
      case '--max-calls':
        only('serve');
        serve.maxCalls = integer(flag, value(), 1);
        break;
      case '--max-queued':
        only('serve');
        serve.maxQueued = integer(flag, value(), 0);
        break;
      case '--drain-grace':
        only('serve');
        serve.drainGrace = integer(flag, value(), 0);
        break;
      case '--instance': {
        only('serve');
        const instance = value();
        if (instance === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(instance))
          throw new UsageError(
            `--instance takes 1 to 64 letters, digits, _ or -, got ${JSON.stringify(instance ?? '')}`,
          );
        serve.instance = instance;
        break;
      }
      case '--advertise': {
        only('serve');
        const url = value();
        if (url === undefined || !/^https?:\/\//.test(url) || !URL.canParse(url))
          throw new UsageError(
            `--advertise takes this instance's http(s) URL, got ${JSON.stringify(url ?? '')}`,
          );
        serve.advertise = url;
        break;
      }
      case '--state-key': {
        only('serve');
        const key = value();
        if (key === undefined || key.length < 32)
          throw new UsageError('--state-key takes a key of at least 32 characters');
        serve.stateKey = key;
        break;
      }
      case '--allow-host': {
        only('serve');
        const host = value();
        if (host === undefined || parseHost(host) === undefined)
          throw new UsageError(
            `--allow-host takes a host name, optionally with :port, got ${JSON.stringify(host ?? '')}`,
          );
        serve.allowHosts.push(host);
        break;
      }
      case '--allow-origin': {
        only('serve');
        const origin = value();
        if (origin === undefined || parseOrigin(origin) === undefined)
          throw new UsageError(
            `--allow-origin takes an origin such as https://app.example, got ${JSON.stringify(origin ?? '')}`,
          );
        serve.allowOrigins.push(origin);
        break;
      }
      default:
        if (word.startsWith('-') && word !== '-')
          throw new UsageError(`unknown option ${JSON.stringify(word)}`);
        if (command === 'serve')
          throw new UsageError(`unexpected argument ${JSON.stringify(word)}`);
        if (batch.input !== undefined) throw new UsageError('give one turn file at most');
        batch.input = word;
    }
  }
  if (authorize) {
    if (!mcp.some((spec) => spec.url !== undefined))
      throw new UsageError('--auth applies to --mcp-url servers; none is given');
    for (const spec of mcp) if (spec.url !== undefined) spec.auth = true;
  }
  if (ui.replay !== undefined && ui.input !== undefined)
    throw new UsageError('give a turn file or --replay, not both');
  if (serve.token !== undefined && serve.http === undefined)
    throw new UsageError('--token applies to --http only');
  if (serve.maxSessions !== undefined && serve.http === undefined)
    throw new UsageError('--max-sessions applies to --http only');
  for (const [set, name] of [
    [serve.stateless, '--stateless'],
    [serve.maxCalls !== undefined, '--max-calls'],
    [serve.maxQueued !== undefined, '--max-queued'],
    [serve.drainGrace !== undefined, '--drain-grace'],
    [serve.instance !== undefined, '--instance'],
    [serve.advertise !== undefined, '--advertise'],
    [serve.stateKey !== undefined, '--state-key'],
    [serve.allowHosts.length > 0, '--allow-host'],
  ] as const)
    if (set && serve.http === undefined) throw new UsageError(`${name} applies to --http only`);
  if (serve.maxQueued !== undefined && serve.maxCalls === undefined)
    throw new UsageError('--max-queued applies with --max-calls only');
  if (serve.allowOrigins.length > 0 && serve.http === undefined)
    throw new UsageError('--allow-origin applies to --http only');
  return command === 'run' ? run : command === 'ui' ? ui : serve;
}
