/**
 * `agenttool run`: replays a model turn through the executor and prints the function_call_output
 * items in model order.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import {
  executeBatch,
  jobsFromItems,
  settledOf,
  toOutputItems,
  ToolSet,
  type Elicitor,
  type ExecuteOptions,
  type SettledResult,
  type Tool,
} from '../index.js';
import { initialCallStates } from '../operators/index.js';
import { bundledTools, reapShells } from './tools/index.js';
import { scriptedElicitor } from './answers.js';
import type { RunArgs } from './args.js';
import { initialState, reduceBatch, type BatchAction } from './call-state.js';
import { fleetSecret } from './fleet-secret.js';
import { closeServers, connectServers, modelTools } from './mcp-servers.js';
import { loadFleet } from './worker-command.js';
import { readTurn } from './read-turn.js';
import { JsonView } from './views/json-view.js';
import { LiveView } from './views/live-view.js';
import { PlainView } from './views/plain-view.js';
import { TerminalForm } from './views/terminal-form.js';
import { noticesThrough } from './notices.js';
import type { BatchView } from './views/view.js';
import { withMediaPlaceholders } from './views/media-placeholder.js';
import { terminalJson } from './views/visible.js';

/** Exit statuses: every call succeeded, a call failed (or was cancelled), bad input. */
export const EXIT_OK = 0;
export const EXIT_CALL_FAILED = 1;
export const EXIT_BAD_INPUT = 2;

/** Runs the command; resolves to the exit status. Bad input throws a UsageError (exit 2). */
export async function runCommand(args: RunArgs): Promise<number> {
  const items = args.list ? [] : await readTurn(args.input);
  // A server's question that no single call owns (a third-party server asking while several
  // calls run) is answered as the calls' questions are, once the turn has its way of answering.
  const questions: { answer?: Elicitor } = {};
  const remotes = await connectServers(args.mcp, args.roots, (request, call) =>
    questions.answer === undefined ? { action: 'decline' } : questions.answer(request, call),
  );
  // With --redis, every call runs on the fleet's workers: the same definitions, sent to the queue.
  const fleet =
    args.redis === undefined
      ? undefined
      : await fleetTools(args, [...bundledTools, ...modelTools(remotes)]);
  try {
    const tools = new ToolSet(fleet?.tools ?? [...bundledTools, ...modelTools(remotes)]);
    tools.validate();
    if (args.list) {
      process.stdout.write(`${terminalJson(tools.definitions(), 2)}\n`);
      return EXIT_OK;
    }
    return await runTurn(args, tools, items, questions);
  } finally {
    await fleet?.close();
    await closeServers(remotes);
  }
}

/**
 * `tools` sent to the fleet on `args.redis`. Each run is a batch of its own (the same turn run
 * again runs again) unless `--batch-id` names an earlier one, which it resumes; a new batch's id
 * is said on stderr, so that the run can be resumed.
 */
async function fleetTools(args: RunArgs, tools: Tool[]) {
  const secret = await fleetSecret(args.secretFile);
  const batchId = args.batchId ?? randomUUID();
  const fleet = (await loadFleet()).queueTools(tools, {
    connection: args.redis!,
    queue: args.queue ?? 'agenttool',
    batchId,
    secret,
  });
  if (args.batchId === undefined && !args.list)
    process.stderr.write(
      `agenttool: fleet batch ${batchId} (resume it with --batch-id ${batchId})\n`,
    );
  return fleet;
}

async function runTurn(
  args: RunArgs,
  tools: ToolSet,
  items: Awaited<ReturnType<typeof readTurn>>,
  questions: { answer?: Elicitor },
): Promise<number> {
  const jobs = jobsFromItems(items, tools);
  const controller = new AbortController();
  const began = Date.now();
  const state = initialState(jobs, args);
  const view = turnView(args, jobs);
  let interrupts = 0;
  const onInterrupt = (): void => {
    interrupts++;
    if (interrupts === 1) {
      // Through the view: the live view keeps the line above its rows.
      view.notice('cancelling: running calls are being stopped (Ctrl-C again to quit now)');
      controller.abort();
    } else {
      view.finish(state);
      reapShells();
      process.exit(130);
    }
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);

  const dispatch = (action: BatchAction): void => {
    reduceBatch(state, action);
    view.update(state, action);
  };
  const options: ExecuteOptions = {
    signal: controller.signal,
    sequential: args.sequential,
    onStart: (_job, index) => dispatch({ type: 'start', index, at: Date.now() - began }),
  };
  if (args.maxParallel !== undefined) options.maxParallel = args.maxParallel;
  if (args.timeout !== undefined) options.timeout = args.timeout;
  const { elicitor, form } = turnAnswers(args, jobs, view);
  if (elicitor !== undefined) options.elicitor = elicitor;
  if (options.elicitor !== undefined) questions.answer = options.elicitor;

  const settled = new Array<SettledResult>(jobs.length);
  noticesThrough((line) => view.notice(line));
  try {
    await new Promise<void>((resolve, reject) => {
      executeBatch(jobs, options).subscribe({
        next: (event) => {
          dispatch({ type: 'event', event, at: Date.now() - began });
          if (event.final) settled[event.index] = settledOf(event);
        },
        error: reject,
        complete: resolve,
      });
    });
  } finally {
    dispatch({ type: 'end', at: Date.now() - began });
    view.finish(state);
    noticesThrough(undefined);
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    form?.close();
    reapShells();
  }
  return printOutput(args, jobs, settled);
}

type Jobs = ReturnType<typeof jobsFromItems>;

/** Where the turn is shown: JSON lines with --json, live rows on a terminal, else plain lines. */
function turnView(args: RunArgs, jobs: Jobs): BatchView {
  return args.json
    ? new JsonView(
        process.stdout,
        jobs,
        initialCallStates(jobs).map((state) => state.resource),
      )
    : process.stderr.isTTY === true
      ? new LiveView(process.stderr)
      : new PlainView(process.stderr);
}

/**
 * The tools' questions: scripted with --answer; asked on a terminal (`form`, closed when the turn
 * ends); else declined at once (no elicitor).
 */
function turnAnswers(
  args: RunArgs,
  jobs: Jobs,
  view: BatchView,
): { elicitor?: Elicitor; form?: TerminalForm } {
  const names = new Map(jobs.map((job, index) => [job.call.id, `#${index} ${job.tool.name}`]));
  const asker = (call: { id: string }): string =>
    names.get(call.id) ?? (call.id === '' ? 'a server (its call unknown)' : call.id);
  if (args.answers.length > 0)
    return { elicitor: scriptedElicitor(args.answers, (line) => view.notice(line), asker) };
  if (process.stdin.isTTY === true && process.stderr.isTTY === true) {
    const form = new TerminalForm(process.stdin, process.stderr, view);
    return { elicitor: (request, call) => form.ask(request, asker(call)), form };
  }
  return {};
}

/** Prints the turn's output items; resolves to the exit status. */
function printOutput(args: RunArgs, jobs: Jobs, settled: SettledResult[]): number {
  const output = toOutputItems(jobs, settled);
  // The text output is for reading, on a terminal or piped (docs/cli.md): inline images and files
  // as one-line placeholders. --json, for programs, keeps all their bytes.
  process.stdout.write(
    args.json
      ? `${terminalJson({ type: 'output', items: output })}\n`
      : `${terminalJson(withMediaPlaceholders(output), 2)}\n`,
  );
  if (
    args.input !== undefined &&
    args.input !== '-' &&
    (!args.json || process.stderr.isTTY === true)
  )
    process.stderr.write(`see it live in a browser: ${invocation(uiCommandLine(args))}\n`);
  return settled.some((s) => 'error' in s) ? EXIT_CALL_FAILED : EXIT_OK;
}

/**
 * How a user types an `agenttool ...` command line here: through the package script in a clone
 * (where the CLI runs from its TypeScript sources), through npx where the package is installed.
 */
export function invocation(line: string): string {
  return import.meta.url.endsWith('.ts')
    ? `npm run -s ${line.replace(/^agenttool /, 'agenttool -- ')}`
    : `npx ${line}`;
}

/** A word as a POSIX shell reads it back: bare when safe, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The `agenttool ui` command line that shows the same turn, with the same tools, in a browser. */
export function uiCommandLine(args: RunArgs): string {
  const words = ['agenttool', 'ui', args.input ?? '-'];
  for (const spec of args.mcp) {
    if (spec.url !== undefined) words.push('--mcp-url', spec.url);
    else words.push('--mcp', [spec.command, ...spec.args].map(shellWord).join(' '));
    for (const [name, value] of Object.entries(spec.env ?? {}))
      words.push('--env', `${name}=${value}`);
    for (const [name, value] of Object.entries(spec.headers ?? {}))
      words.push('--header', `${name}: ${value}`);
    if (spec.prefix !== undefined) words.push('--prefix', spec.prefix);
  }
  if (args.mcp.some((spec) => spec.auth === true)) words.push('--auth');
  for (const root of args.roots) words.push('--root', root);
  if (args.sequential) words.push('--sequential');
  if (args.maxParallel !== undefined) words.push('--max-parallel', String(args.maxParallel));
  if (args.timeout !== undefined) words.push('--timeout', String(args.timeout));
  // Where the calls run (the fleet) and where their spans go, as in the run.
  if (args.redis !== undefined) words.push('--redis', args.redis);
  if (args.queue !== undefined) words.push('--queue', args.queue);
  if (args.secretFile !== undefined) words.push('--secret-file', args.secretFile);
  if (args.otlp !== undefined) words.push('--otlp', args.otlp);
  return words.map(shellWord).join(' ');
}
