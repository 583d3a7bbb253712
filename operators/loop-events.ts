import type { FunctionCallItem } from '../lib/open-responses.js';
import type { Approval, ExecutionEvent } from './job.js';

/**
 * What {@link agentLoop} emits: the model's text as it streams, each call as the model writes it
 * and as the engine runs it, approvals asked and given, and the boundaries of each turn with its
 * items. A view, a log or a wire encoder (`toUIMessageStream`, `toAgUiEvents`) needs nothing else.
 *
 * `turn` counts from 1. Within a turn the order is: `turn-start`, then the model's events
 * (`text-delta`, `call-start`, `call-delta`, `call`) interleaved with the engine's (`approval`,
 * `call-event`) as they happen, then `turn-end` once the model's stream has ended and every call
 * of the turn has its final event. `loop-end` is the last event before completion.
 *
 * `I` is the type of the conversation's items: Open Responses input items for the default
 * `responses` format, Chat Completions messages or Anthropic messages for the others.
 */
export type LoopEvent<I = unknown> =
  | LoopTurnStart<I>
  | LoopTextDelta
  | LoopCallStart
  | LoopCallDelta
  | LoopCall
  | LoopApproval
  | LoopCallEvent
  | LoopTurnEnd<I>
  | LoopEnd<I>;

/** A turn begins: `input` is every item the model is sent for it, the conversation so far. */
export interface LoopTurnStart<I> {
  readonly type: 'turn-start';
  readonly turn: number;
  readonly input: readonly I[];
}

/** A piece of the model's text. `id` names the text (one id per message the model writes). */
export interface LoopTextDelta {
  readonly type: 'text-delta';
  readonly turn: number;
  readonly id: string;
  readonly delta: string;
}

/** The model began writing a call: its id and tool are known, its arguments are not yet. */
export interface LoopCallStart {
  readonly type: 'call-start';
  readonly turn: number;
  readonly callId: string;
  readonly name: string;
}

/** A piece of a call's arguments, as the model writes them (JSON text). */
export interface LoopCallDelta {
  readonly type: 'call-delta';
  readonly turn: number;
  readonly callId: string;
  readonly delta: string;
}

/** A call the model finished writing, handed to the engine at once. */
export interface LoopCall {
  readonly type: 'call';
  readonly turn: number;
  readonly call: FunctionCallItem;
}

/**
 * A call's approval, when the loop has an `approve` option: asked (`answer` undefined), then
 * given (`answer` set), also where `approve` answers at once, so a view shows what was decided.
 */
export interface LoopApproval {
  readonly type: 'approval';
  readonly turn: number;
  readonly callId: string;
  readonly call: FunctionCallItem;
  readonly answer?: Approval;
}

/** One of the engine's events for a call of this turn: progress, a question, the final event. */
export interface LoopCallEvent {
  readonly type: 'call-event';
  readonly turn: number;
  readonly call: FunctionCallItem;
  readonly event: ExecutionEvent;
}

/**
 * A turn ended: `output` holds the model's items for it (its messages and calls) followed by the
 * calls' output items, in the conversation's format: what the next turn sends after `input`.
 */
export interface LoopTurnEnd<I> {
  readonly type: 'turn-end';
  readonly turn: number;
  readonly output: readonly I[];
  /** How many calls the model made this turn. */
  readonly calls: number;
}

/**
 * The loop ended: `reason` says why (`done`: a turn made no call; `max-turns`; `stopped`: the
 * `stopWhen` predicate said so; `cancelled`: the `signal` option aborted) and `items` is the
 * whole conversation, input included.
 */
export interface LoopEnd<I> {
  readonly type: 'loop-end';
  readonly reason: 'done' | 'max-turns' | 'stopped' | 'cancelled';
  readonly turns: number;
  readonly items: readonly I[];
}
