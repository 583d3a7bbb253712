#!/usr/bin/env node
/**
 * `agenttool`: replay a model turn through the executor (`run`), watch it in a browser (`ui`), or
 * serve tools over MCP (`serve`). Exit status: 0 done, 1 a call failed, 2 bad input.
 */
import { parseArgs } from './args.js';
import { MCP_SERVER_SDK, withMcpSdk } from './mcp-sdk.js';
import { reapOnExit } from './reap-on-exit.js';
import { reapShells } from './process-groups.js';
import { visible } from './views/visible.js';
import { UsageError } from './usage-error.js';

/** Bad input: an unreadable file, invalid items, an unknown option. */
const EXIT_BAD_INPUT = 2;

const HELP = `agenttool: run tool calls the way an agent loop does

usage:
  agenttool run [turn.json | -] [options]   replay a model turn's function_call items
  agenttool ui [turn.json | --replay run.jsonl] [options]
                                            watch a turn run live in a web page (loopback)
  agenttool serve [--http <port>] [--host <addr>] [--mcp ... | --mcp-url ...]... [--root <dir>]...
                                            serve the bundled tools over MCP (stdio by default)
                  [--token <t>]             with --http: clients must send Authorization: Bearer <t>
                                            (default: $AGENTTOOL_TOKEN, else no token)
                  [--max-sessions <n>]      with --http: at most n client sessions (default 1000)
                  [--stateless]             with --http: no sessions, every request on its own (for
                                            many instances behind a round-robin balancer)
                  [--max-calls <n>]         with --http: at most n tool calls at once; past it a
                                            call is answered busy (503, Retry-After) ...
                  [--max-queued <n>]        ... unless one of n places in a queue is free
                  [--drain-grace <ms>]      with --http: on SIGTERM, running calls get this long to
                                            finish while new ones get 503 (default 30000)
                  [--instance <id>]         with --http: session ids read <id>.<uuid>, for a balancer
                                            that routes each session to its instance
                  [--state-key <key>]       with --http: signs the state of a call held for a client's
                                            answer; the same on every instance (default:
                                            $AGENTTOOL_STATE_KEY, else random per process)
                  [--advertise <url>]       with --http: this instance's URL for the others, which
                                            forward a held call's retry to it (needs a state key)
                  [--allow-host <name>]...  with --http: accept this Host (the name clients use,
                                            behind a proxy), besides loopback and the bound address
                  [--allow-origin <origin>]...
                                            with --http: pages of this origin may call the server
                                            from a browser (CORS; e.g. http://localhost:4200)

run options:
  --mcp "<command>"    also offer the tools of this MCP server (stdio); repeatable; it gets
                       the user's environment
  --env NAME=VALUE     set a variable for the --mcp before it; repeatable
  --mcp-url <url>      also offer the tools of the MCP server at this URL (Streamable HTTP)
  --header "N: v"      send this header to the --mcp-url before it; repeatable
  --auth               authorize with OAuth to the --mcp-url servers that ask (a browser
                       page; tokens kept in ~/.config/agenttool/oauth.json, yours alone)
  --prefix <p>         name the tools of the --mcp or --mcp-url before it <p>__<name>
  --root <dir>         a root offered to every MCP server; repeatable (default: the working
                       directory)
  --max-parallel <n>   at most n calls at once (default 8)
  --sequential         one call at a time, in model order
  --timeout <ms>       cancel a call that runs longer
  --list               print the tool definitions (Open Responses function tools) and exit
  --json               write every event as a JSON line on stdout instead of the live view
  --answer <answer>    answer the tools' questions instead of asking: the form's content as a
                       JSON object ('{"answer": "blue"}'), an MCP answer
                       ('{"action": "accept", "content": {...}}'), decline or cancel; repeatable,
                       used in the order the questions are asked (--sequential fixes that
                       order), then declines; content that does not fit its question declines
                       it, with one line on stderr

The turn is Open Responses output items: a JSON array, a response object with "output", or JSON
Lines on stdin. The function_call_output items are printed on stdout in model order.
Exit status: 0 every call succeeded, 1 a call failed or was cancelled, 2 bad input.
A tool that asks a question (ask_user, or an MCP server's elicitation) is asked on the terminal,
one field at a time above the live rows (Enter keeps the default; /decline, /cancel); without a
terminal on stdin and stderr, and without --answer, it is declined at once.

ui options (and run's --mcp, --env, --mcp-url, --header, --prefix, --root, --max-parallel,
--sequential, --timeout):
  --replay <file>      show a saved "agenttool run --json" output instead of running a turn
  --port <n>           listen on this port (default: any free one); the address is printed
  --no-open            do not open the page in a browser
  --approve            ask in the page before each call that is not read-only runs
The page shows one row per call (state, progress, time, output) and a timeline with a lane per
resource; it can run the turn again, cancel one call, or cancel the batch, approve or refuse a
call, and answer a tool's question in its row. Ctrl-C stops the server.
`;

async function main(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv);
  switch (args.command) {
    case 'help':
      process.stdout.write(HELP);
      return 0;
    case 'version':
      process.stdout.write('agenttool 0.1.0\n');
      return 0;
    // Loaded on demand, so that help and bad options answer without loading the engine or the SDK.
    case 'run':
      return (await import('./run-command.js')).runCommand(args);
    case 'serve':
      return (
        await withMcpSdk('agenttool serve', MCP_SERVER_SDK, () => import('./serve-command.js'))
      ).serveCommand(args);
    case 'ui':
      return (await import('./ui/ui-command.js')).uiCommand(args);
  }
}

// Whatever ends the process, the commands its bash calls started end with it.
reapOnExit();
main(process.argv.slice(2)).then(
  (status) => {
    reapShells();
    process.exitCode = status;
  },
  (err: unknown) => {
    reapShells();
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`agenttool: ${visible(message.replace(/\s*\n\s*/g, ' '))}\n`);
    process.exitCode = err instanceof UsageError ? EXIT_BAD_INPUT : 1;
  },
);
