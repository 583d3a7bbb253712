import type { Observable } from 'rxjs';
import type { FunctionCallItem } from '../../lib/open-responses.js';
import {
  callsFrom,
  objectOf,
  stringOf,
  type CallAssembler,
  type ProviderStream,
} from './stream-calls.js';

/**
 * A chunk of a Chat Completions stream (`chat.completions.create({ stream: true })`). Typed
 * structurally with only what is read, so the `openai` package's `ChatCompletionChunk` fits as
 * it is; every field is checked when read.
 */
export interface ChatCompletionsChunk {
  /** The choices this chunk adds to; only the first choice (`index` 0) is read. */
  readonly choices?: readonly ChatCompletionsChunkChoice[] | null;
}

/** One choice of a chunk. */
export interface ChatCompletionsChunkChoice {
  /** Which choice this is: 0 for the first (the only one unless the request set `n`). */
  readonly index?: number;
  /** What this chunk adds to the choice's message. */
  readonly delta?: {
    /** Pieces of tool calls, each naming its call by `index`. */
    readonly tool_calls?: readonly ChatCompletionsToolCallDelta[] | null;
  } | null;
  /** Why the choice ended (`tool_calls`, `stop`, `length`, ...); null while it goes on. */
  readonly finish_reason?: string | null;
}

/** A piece of one tool call: the first carries its id and name, the rest its arguments. */
export interface ChatCompletionsToolCallDelta {
  /** The position of the call in the message: all pieces of a call share it. */
  readonly index: number;
  /** The call's id, on its first piece. */
  readonly id?: string | null;
  /** `function`, on its first piece. */
  readonly type?: string | null;
  /** The function's name (first piece) and a piece of its arguments' JSON text. */
  readonly function?: {
    /** The function's name, on the call's first piece. */
    readonly name?: string | null;
    /** A piece of the arguments' JSON text, appended to those before it. */
    readonly arguments?: string | null;
  } | null;
}

/**
 * The tool calls of a Chat Completions stream as Open Responses function_call items, each
 * emitted the moment its arguments are complete, ready for `jobsFromItems` and
 * {@link executeCalls}.
 *
 * ```
 *   chunks   -t-0-0-0-1-1-f|          t: text   0, 1: pieces of tool calls 0 and 1
 *                                      f: the chunk with finish_reason
 *            callsFromChatCompletionsStream(chunks)
 *
 *   calls    ---------0---1|           call 0 is complete when call 1 starts
 * ```
 *
 * Chat Completions gives a call no end of its own: its pieces arrive by `index`, the first with
 * the call's `id` and `function.name`, the rest appending to `function.arguments`. A call is
 * complete when a piece of a higher index arrives, when the choice's `finish_reason` is set, or
 * when the stream ends normally. Only the first choice (`index` 0) is read; text is skipped.
 *
 * The Observable errors, after the calls completed before, when the stream fails (the SDK's
 * iterator throws, as it does for an error chunk or a broken connection; the call being written
 * is then not emitted), when a piece goes back to a call that was already complete (its calls
 * are then not those of one index after another), and when a call has no id or name. A call
 * whose arguments are not valid JSON is still emitted: the engine answers it with `invalid
 * arguments: not valid JSON: ...`, which the model reads and can retry on. Unsubscribing stops
 * reading the stream and aborts an SDK stream's request. An SDK stream can be read once:
 * subscribe once.
 *
 * ## Example
 *
 * ```ts
 * const stream = await openai.chat.completions.create({ model, messages, tools, stream: true });
 * callsFromChatCompletionsStream(stream)
 *   .pipe(map((call) => jobsFromItems([call], toolSet)[0]!), executeCalls())
 *   .subscribe(render);
 * ```
 *
 * @see {@link callsFromResponsesStream} and {@link callsFromAnthropicStream} for the other
 *   formats.
 * @param stream The SDK's stream, or an Observable of its chunks.
 * @return The calls, in the order they complete.
 */
export function callsFromChatCompletionsStream(
  stream: ProviderStream<ChatCompletionsChunk>,
): Observable<FunctionCallItem> {
  return callsFrom(stream, () => new ChatCompletionsCalls());
}

/** The call being written: its index, and what its pieces said so far. */
interface OpenCall {
  readonly index: number;
  id: string | undefined;
  name: string | undefined;
  arguments: string;
}

/** Chat Completions chunks to calls: one call open at a time, in index order. */
class ChatCompletionsCalls implements CallAssembler<ChatCompletionsChunk> {
  private current: OpenCall | undefined;
  /** The highest index of a completed call: a piece for it or below comes too late. */
  private lastDone = -1;

  push(chunk: ChatCompletionsChunk): readonly FunctionCallItem[] {
    const choice = firstChoice(chunk);
    if (choice === undefined) return [];
    const done: FunctionCallItem[] = [];
    const pieces = objectOf(choice.delta)?.tool_calls;
    for (const piece of Array.isArray(pieces) ? (pieces as unknown[]) : []) {
      const call = this.pieceOf(piece, done);
      const fn = objectOf((piece as ChatCompletionsToolCallDelta).function);
      call.id ??= stringOf((piece as ChatCompletionsToolCallDelta).id) || undefined;
      call.name ??= stringOf(fn?.name) || undefined;
      call.arguments += stringOf(fn?.arguments) ?? '';
    }
    if (choice.finish_reason !== null && choice.finish_reason !== undefined)
      done.push(...this.end());
    return done;
  }

  end(): readonly FunctionCallItem[] {
    const call = this.current;
    if (call === undefined) return [];
    this.current = undefined;
    this.lastDone = call.index;
    return [finished(call)];
  }

  /** The call `piece` adds to: the open one, or a new one (completing the open one into `done`). */
  private pieceOf(piece: unknown, done: FunctionCallItem[]): OpenCall {
    const index = objectOf(piece)?.index;
    if (typeof index !== 'number' || !Number.isInteger(index))
      throw new Error('Chat Completions stream: a tool call piece without an index');
    if (this.current?.index === index) return this.current;
    if (index <= this.lastDone || (this.current !== undefined && index < this.current.index))
      throw new Error(
        `Chat Completions stream: a piece of tool call ${index} came after a later call had started`,
      );
    done.push(...this.end());
    return (this.current = { index, id: undefined, name: undefined, arguments: '' });
  }
}

function firstChoice(chunk: ChatCompletionsChunk): ChatCompletionsChunkChoice | undefined {
  const choices = objectOf(chunk)?.choices;
  if (!Array.isArray(choices)) return undefined;
  return (choices as unknown[]).find(
    (choice): choice is ChatCompletionsChunkChoice => (objectOf(choice)?.index ?? 0) === 0,
  );
}

function finished(call: OpenCall): FunctionCallItem {
  if (call.id === undefined || call.name === undefined)
    throw new Error(
      `Chat Completions stream: tool call ${call.index} has no ${call.id === undefined ? 'id' : 'name'}`,
    );
  return { type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments };
}
