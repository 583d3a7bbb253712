/**
 * The `requestState` of an `input_required` answer (MCP 2026-07-28): what names a held call, signed
 * so that a client can neither forge nor alter it, and where the call is held.
 *
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/server';

/** What a signed state says. */
export interface HeldCallState {
  /** The held call's id. */
  readonly call: string;
  /** The tool's name: a retry must call the same tool. */
  readonly tool: string;
  /** Where the call is held (the instance's advertised URL), when it says. */
  readonly home?: string;
  /** When the state stops being honoured (ms since the epoch). */
  readonly expires: number;
}

/** How the Servers of one endpoint sign the states they give, and where they say calls are held. */
export interface StateSigning {
  /** The HMAC-SHA256 key. */
  readonly key: Uint8Array;
  /** This instance's address, for another instance to forward a retry to. */
  readonly home?: string;
}

/** The key of this process, for Servers of no endpoint that set one (stdio, in memory). */
const processKey = randomBytes(32);

const signings = new WeakMap<Server, StateSigning>();

/** Gives `server` the signing of the endpoint it serves (see `McpHttpHandlerOptions`). */
export function setStateSigning(server: Server, signing: StateSigning): void {
  signings.set(server, signing);
}

/** The signing of `server`: its endpoint's, or this process's own key and no home. */
export function stateSigningOf(server: Server): StateSigning {
  return signings.get(server) ?? { key: processKey };
}

/** A key given as text (at least 32 characters) as bytes; a RangeError for a shorter one. */
export function stateKeyOf(text: string): Uint8Array {
  if (text.length < 32)
    throw new RangeError(
      'requestStateKey must be at least 32 characters, shared by every instance',
    );
  return Buffer.from(text, 'utf8');
}

function mac(key: Uint8Array, body: string): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

/** `state` signed with `key`: its JSON in base64url, a dot, its HMAC-SHA256 in base64url. */
export function signState(state: HeldCallState, key: Uint8Array): string {
  const body = Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');
  return `${body}.${mac(key, body).toString('base64url')}`;
}

/**
 * What a state signed with `key` says, or why it is refused: not one of ours (malformed, or its
 * signature does not match: forged or altered), or expired.
 */
export function openState(
  text: unknown,
  key: Uint8Array,
  now = Date.now(),
): HeldCallState | string {
  if (typeof text !== 'string' || text.length > 4096)
    return 'requestState is not one this server gave';
  const dot = text.indexOf('.');
  if (dot <= 0) return 'requestState is not one this server gave';
  const body = text.slice(0, dot);
  const given = Buffer.from(text.slice(dot + 1), 'base64url');
  const expected = mac(key, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return 'requestState is not one this server gave (its signature does not match)';
  let state: unknown;
  try {
    state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return 'requestState is not one this server gave';
  }
  const { call, tool, home, expires } = (state ?? {}) as Record<string, unknown>;
  if (
    typeof call !== 'string' ||
    typeof tool !== 'string' ||
    typeof expires !== 'number' ||
    (home !== undefined && typeof home !== 'string')
  )
    return 'requestState is not one this server gave';
  if (expires < now) return 'requestState has expired: call the tool again';
  return home === undefined ? { call, tool, expires } : { call, tool, home, expires };
}
