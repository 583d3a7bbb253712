/**
 * The question modes of the client a proxy's call serves: read where the upstream's question
 * arrives (client-elicitation.ts), so that a question in a mode that client did not declare is
 * answered as such a client answers it.
 *
 * @module
 */

/** The elicitation modes a client declared (see `elicitationModes` of client-elicitor.ts). */
export interface QuestionModes {
  readonly form: boolean;
  readonly url: boolean;
}

const modesOf = new WeakMap<object, QuestionModes>();

/** Notes that the call of `context` relays questions to a client that declared `modes`. */
export function relayModes(context: object, modes: QuestionModes): void {
  modesOf.set(context, modes);
}

/** The modes noted for `context` (see {@link relayModes}), if any. */
export function relayedModesOf(context: object): QuestionModes | undefined {
  return modesOf.get(context);
}
