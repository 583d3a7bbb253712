/**
 * The fleet's signatures: with a secret shared by its dispatchers and workers, each job's call
 * and each call's end (result or failure) is signed (HMAC-SHA256), so that a worker runs only the
 * calls a dispatcher sent and a dispatcher takes only the ends a worker gave. Without the secret,
 * write access to Redis is not enough to have a worker run a command. docs/scaling-out.md says
 * what is and is not covered.
 *
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  canonicalJson,
  type CallData,
  type CallPayload,
  type Failure,
  type Finished,
} from './fleet-message.js';

/** The shortest secret taken, in bytes: as long as the SHA-256 it keys. */
export const MIN_SECRET_BYTES = 32;

/** Signs and checks a fleet's messages with its secret. */
export class FleetSigner {
  readonly #key: Buffer;

  /** Throws a TypeError for a secret shorter than {@link MIN_SECRET_BYTES} bytes. */
  constructor(secret: string | Uint8Array) {
    const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
    if (key.length < MIN_SECRET_BYTES)
      throw new TypeError(
        `fleet: the secret is ${key.length} bytes; it must be at least ${MIN_SECRET_BYTES} (openssl rand -hex 32 makes one)`,
      );
    this.#key = key;
  }

  /** The signature of `what` (a message kind), the job id and `body`. */
  #sign(what: string, jobId: string, body: unknown): string {
    return createHmac('sha256', this.#key)
      .update(canonicalJson([what, jobId, body]))
      .digest('base64url');
  }

  #verify(what: string, jobId: string, body: unknown, sig: string | undefined): boolean {
    if (sig === undefined) return false;
    const expected = Buffer.from(this.#sign(what, jobId, body));
    const given = Buffer.from(sig);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** `payload` with its signature, as the job `jobId`'s data. */
  signCall(jobId: string, payload: CallPayload): CallData {
    return { ...payload, sig: this.#sign('call', jobId, payload) };
  }

  /** Whether `data` is the call a holder of the secret sent as job `jobId`. */
  verifyCall(jobId: string, data: CallData): boolean {
    const { sig, ...payload } = data;
    return this.#verify('call', jobId, payload, sig);
  }

  signFinished(jobId: string, finished: Finished): Finished {
    return { ...finished, sig: this.#sign('finished', jobId, finished) };
  }

  verifyFinished(jobId: string, finished: Finished): boolean {
    const { sig, ...body } = finished;
    return this.#verify('finished', jobId, body, sig);
  }

  signFailure(jobId: string, failure: Failure): Failure {
    return { ...failure, sig: this.#sign('failure', jobId, failure) };
  }

  verifyFailure(jobId: string, failure: Failure): boolean {
    const { sig, ...body } = failure;
    return this.#verify('failure', jobId, body, sig);
  }
}
