/**
 * The one way a served call of MCP 2026-07-28 asks its client: the questions it has open, each an
 * input request under a key, answered by the `inputResponses` that come back under that key. A
 * held call (held/held-calls.ts) shows them in its `input_required` answer, a task
 * (tasks/running-task.ts) in its `input_required` status; both ask and take answers here.
 *
 * @module
 */
import type {
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  InputRequiredResult,
  ListRootsRequest,
} from '@modelcontextprotocol/server';
import { Observable } from 'rxjs';
import type { ElicitRequest, ElicitResult } from '../../lib/contract.js';
import { CALL_TOKEN } from '../mcp-shared/call-token.js';
import { rootsOfAnswer, type RelayedRoot } from '../mcp-shared/relayed-roots.js';
import { elicitParams, mayAsk, type ElicitationModes } from './client-elicitor.js';

/** An input request, as `input_required` (a result or a task's status) carries it. */
export type InputRequest = NonNullable<InputRequiredResult['inputRequests']>[string];

/** A client's answer as the tool sees it; anything that is not an elicitation result, `cancel`. */
export function answerOf(response: unknown): ElicitResult {
  const { action, content } = (response ?? {}) as { action?: unknown; content?: unknown };
  if (action === 'decline' || action === 'cancel') return { action };
  if (action === 'accept') {
    if (content === undefined) return { action: 'accept', content: {} };
    if (typeof content === 'object' && content !== null && !Array.isArray(content))
      return { action: 'accept', content: content as Record<string, string> };
  }
  return { action: 'cancel' };
}

/** How a call's questions are keyed, and what is told when they change. */
export interface OpenQuestionsOptions {
  /** The elicitation modes the client declared: a question in another mode is declined at once. */
  readonly modes: ElicitationModes;
  /** The call's token (see `callTokenOf`), sent with each question so a client knows the call. */
  readonly token: string | undefined;
  /**
   * `once`: a key once used is never used again, even by the tool (the tasks extension's rule);
   * `open`: a key is taken unless a question open now has it.
   */
  readonly keys: 'once' | 'open';
  /**
   * Answers given ahead of being asked, by key (the first request's `inputResponses`): a question
   * asked under one is answered at once. Unknown keys are ignored.
   */
  readonly preset?: Readonly<Record<string, unknown>> | undefined;
  /** Told whenever a question opens, or one closes without an answer. */
  readonly changed: () => void;
}

/** A question open for the client: the input request it is sent as, and who takes the answer. */
interface Question {
  readonly request: InputRequest;
  readonly answer: (response: unknown) => void;
}

/** One served call's questions for its client (see the module). */
export class OpenQuestions {
  private readonly open = new Map<string, Question>();
  private readonly used = new Set<string>();
  private asked = 0;
  private readonly preset: Map<string, unknown>;

  constructor(private readonly options: OpenQuestionsOptions) {
    this.preset = new Map(Object.entries(options.preset ?? {}));
  }

  /** `context.elicit` through the client: declined at once in a mode the client did not declare. */
  elicit(request: ElicitRequest): Observable<ElicitResult> {
    return new Observable<ElicitResult>((subscriber) => {
      if (!mayAsk(this.options.modes, request)) {
        subscriber.next({ action: 'decline' });
        subscriber.complete();
        return;
      }
      // MCP 2026-07-28 has no elicitationId.
      const params = elicitParams(request, undefined);
      return this.ask(request.key, 'elicitation/create', params, (response) => {
        subscriber.next(answerOf(response));
        subscriber.complete();
      });
    });
  }

  /**
   * The client's roots (a `roots/list` input request), for a proxy's call whose upstream asks for
   * them (see relayed-roots.ts): its roots, or undefined when its answer is not a list of roots.
   */
  roots(key: string | undefined): Observable<readonly RelayedRoot[] | undefined> {
    return new Observable<readonly RelayedRoot[] | undefined>((subscriber) =>
      this.ask(key, 'roots/list', {}, (response) => {
        subscriber.next(rootsOfAnswer(response));
        subscriber.complete();
      }),
    );
  }

  /**
   * Opens a question under `given` or a key of its own (see {@link OpenQuestionsOptions.keys}),
   * answered by `answer` with the client's response: at once when a preset answer has its key,
   * else once one is delivered. Returns what takes it back.
   */
  private ask(
    given: string | undefined,
    method: 'elicitation/create' | 'roots/list',
    params: ElicitRequestFormParams | ElicitRequestURLParams | ListRootsRequest['params'],
    answer: (response: unknown) => void,
  ): (() => void) | undefined {
    const key = this.keyFor(given);
    if (this.preset.has(key)) {
      const response = this.preset.get(key);
      this.preset.delete(key);
      answer(response);
      return undefined;
    }
    const token = this.options.token;
    const meta = token === undefined ? {} : { _meta: { [CALL_TOKEN]: token } };
    const request = { method, params: { ...params, ...meta } } as InputRequest;
    this.open.set(key, { request, answer });
    this.options.changed();
    return () => {
      if (this.open.delete(key)) this.options.changed();
    };
  }

  private keyFor(given: string | undefined): string {
    if (this.options.keys === 'open') {
      this.asked++;
      return given !== undefined && !this.open.has(given) ? given : `q${this.asked}`;
    }
    let key = given;
    while (key === undefined || this.used.has(key)) key = `q${++this.asked}`;
    this.used.add(key);
    return key;
  }

  /** Gives the responses to the open questions their keys name; other keys are ignored. */
  deliver(responses: Readonly<Record<string, unknown>> | undefined): void {
    if (responses === undefined) return;
    for (const [key, response] of Object.entries(responses)) {
      const question = this.open.get(key);
      if (question === undefined) continue;
      this.open.delete(key);
      question.answer(response);
    }
  }

  /** How many questions are open. */
  get size(): number {
    return this.open.size;
  }

  /** The open questions as `inputRequests`, by key. */
  requests(): Record<string, InputRequest> {
    const requests: Record<string, InputRequest> = {};
    for (const [key, question] of this.open) requests[key] = question.request;
    return requests;
  }
}
