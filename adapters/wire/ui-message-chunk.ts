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
  | { readonly type: 'start'; readonly messageId?: string }
  | { readonly type: 'finish'; readonly finishReason?: UIFinishReason }
  | { readonly type: 'start-step' }
  | { readonly type: 'finish-step' }
  | { readonly type: 'text-start'; readonly id: string }
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'text-end'; readonly id: string }
  | {
      readonly type: 'tool-input-start';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly dynamic?: boolean;
    }
  | {
      readonly type: 'tool-input-delta';
      readonly toolCallId: string;
      readonly inputTextDelta: string;
    }
  | {
      readonly type: 'tool-input-available';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
      readonly dynamic?: boolean;
    }
  | {
      readonly type: 'tool-input-error';
      readonly toolCallId: string;
      readonly toolName: string;
      /** The arguments as the model wrote them, the text that did not parse. */
      readonly input: unknown;
      readonly errorText: string;
      readonly dynamic?: boolean;
    }
  | {
      readonly type: 'tool-approval-request';
      readonly approvalId: string;
      readonly toolCallId: string;
    }
  | {
      readonly type: 'tool-approval-response';
      readonly approvalId: string;
      readonly approved: boolean;
      readonly reason?: string;
    }
  | {
      readonly type: 'tool-output-available';
      readonly toolCallId: string;
      readonly output: unknown;
      readonly preliminary?: boolean;
      readonly dynamic?: boolean;
    }
  | {
      readonly type: 'tool-output-error';
      readonly toolCallId: string;
      readonly errorText: string;
      readonly dynamic?: boolean;
    }
  | { readonly type: 'tool-output-denied'; readonly toolCallId: string }
  | {
      readonly type: typeof QUESTION_DATA_TYPE;
      /** The question's id: the answer replaces the question's part in the message. */
      readonly id: string;
      readonly data: WireQuestion;
    }
  | { readonly type: 'error'; readonly errorText: string };
