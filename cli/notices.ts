/**
 * Where the CLI's one-line notices go (a server's log message, a warning about a server): to
 * stderr, or through the view `agenttool run` draws while it runs (see `BatchView.notice`), so a
 * line never lands in the middle of the live view's rows.
 */
let through: ((line: string) => void) | undefined;

/** Writes `line` (one line, already made visible) where notices go now. */
export function notice(line: string): void {
  if (through !== undefined) through(line);
  else process.stderr.write(`${line}\n`);
}

/** Sends notices through `view` from now on; undefined: to stderr again. */
export function noticesThrough(view: ((line: string) => void) | undefined): void {
  through = view;
}
