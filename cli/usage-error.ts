/** Bad input on the command line or in the turn: the CLI prints it on one line and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
