/**
 * The fleet's shared secret for `--redis` (run, ui, worker): read from `--secret-file`, else from
 * the AGENTTOOL_FLEET_SECRET variable; none when neither is given.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from './usage-error.js';

/** The fewest bytes a secret may have (as `queueTools` and `runWorker` require). */
const MIN_BYTES = 32;

/**
 * The secret in `file` (its trailing line end dropped), else in AGENTTOOL_FLEET_SECRET; undefined
 * when neither is set. A file that cannot be read, or a secret under 32 bytes, is a UsageError.
 */
export async function fleetSecret(file: string | undefined): Promise<string | undefined> {
  let secret: string | undefined;
  let where: string;
  if (file !== undefined) {
    where = file;
    try {
      secret = (await readFile(file, 'utf8')).replace(/\r?\n$/, '');
    } catch (err) {
      throw new UsageError(
        `--secret-file: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  } else {
    where = 'AGENTTOOL_FLEET_SECRET';
    secret = process.env.AGENTTOOL_FLEET_SECRET;
    if (secret === '') secret = undefined;
  }
  if (secret !== undefined && Buffer.byteLength(secret) < MIN_BYTES)
    throw new UsageError(
      `the fleet secret in ${where} is ${Buffer.byteLength(secret)} bytes; it must be at least ${MIN_BYTES} (openssl rand -hex 32 makes one)`,
    );
  return secret;
}
