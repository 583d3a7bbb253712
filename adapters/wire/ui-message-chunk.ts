/**
 * The chunks of the AI SDK's UI message stream (package `ai`, version 7) that `toUIMessageStream`
 * writes: our own types, the same shapes, so the library needs no `ai` at run time. A type test
 * (test/types/wire.test-d.ts) checks that each is one of `ai`'s `UIMessageChunk`s.
 *
 * @module
 */
import type { WireQuestion } from './loop-encoder.js';

/** The name of the data part a tool's question travels in: `data-agenttool-question`. */
export const QUESTION_DATA_TYPE = 'data-agenttool-question';

/** Why the message ended, in the AI SDK's words. */
export type UIFinishReason =
  'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'interrupted' | 'other';

/** One chunk of a UI message stream, as `toUIMessageStream` writes it. */
export type UIMessageChunk =
  | {
      /** The chunk's kind. */
      readonly type: 'start';
      /** The assistant message's id, when the options name one. */
      readonly messageId?: string;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'finish';
      /** Why the loop ended. */
      readonly finishReason?: UIFinishReason;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'start-step';
    }
  | {
      /** The chunk's kind. */
      readonly type: 'finish-step';
    }
  | {
      /** The chunk's kind. */
      readonly type: 'text-start';
      /** The text's id, as the model named it. */
      readonly id: string;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'text-delta';
      /** The text's id, as the model named it. */
      readonly id: string;
      /** A piece of the text. */
      readonly delta: string;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'text-end';
      /** The text's id, as the model named it. */
      readonly id: string;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'tool-input-start';
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
      /** The call's tool. */
      readonly toolName: string;
      /** A `dynamic-tool` part rather than `tool-<name>` (the `dynamic` option). */
      readonly dynamic?: boolean;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'tool-input-delta';
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
      /** A piece of the arguments' JSON text. */
      readonly inputTextDelta: string;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'tool-input-available';
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
      /** The call's tool. */
      readonly toolName: string;
      /** The arguments, parsed. */
      readonly input: unknown;
      /** A `dynamic-tool` part rather than `tool-<name>` (the `dynamic` option). */
      readonly dynamic?: boolean;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'tool-input-error';
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
      /** The call's tool. */
      readonly toolName: string;
      /** The arguments as the model wrote them, the text that did not parse. */
      readonly input: unknown;
      /** Why they did not parse. */
      readonly errorText: string;
      /** A `dynamic-tool` part rather than `tool-<name>` (the `dynamic` option). */
      readonly dynamic?: boolean;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'tool-approval-request';
      /** The approval's id: the call's id. */
      readonly approvalId: string;
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'tool-approval-response';
      /** The approval's id: the call's id. */
      readonly approvalId: string;
      /** Whether the call may run. */
      readonly approved: boolean;
      /** The refusal's reason, else the person's note. */
      readonly reason?: string;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'tool-output-available';
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
      /** The part's output: by default what the model reads (`toolOutput` to change it). */
      readonly output: unknown;
      /** Progress: the next output replaces it. */
      readonly preliminary?: boolean;
      /** A `dynamic-tool` part rather than `tool-<name>` (the `dynamic` option). */
      readonly dynamic?: boolean;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'tool-output-error';
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
      /** The error's message. */
      readonly errorText: string;
      /** A `dynamic-tool` part rather than `tool-<name>` (the `dynamic` option). */
      readonly dynamic?: boolean;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'tool-output-denied';
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
    }
  | {
      /** The chunk's kind: a data part. */
      readonly type: typeof QUESTION_DATA_TYPE;
      /** The question's id: the answer replaces the question's part in the message. */
      readonly id: string;
      /** The question, and its answer once given. */
      readonly data: WireQuestion;
    }
  | {
      /** The chunk's kind. */
      readonly type: 'error';
      /** The loop's error, for a person. */
      readonly errorText: string;
    };
