/**
 * The events of AG-UI 1.0 that `toAgUiEvents` writes: our own types, the same shapes as
 * `@ag-ui/core`'s (whose `type` is a TypeScript enum of the same strings), so the library needs
 * no AG-UI package at run time. A type test (test/types/wire.test-d.ts) checks that each is one
 * of `@ag-ui/core`'s events.
 *
 * @module
 */

/** The `activityType` of a call's progress (an `ACTIVITY_SNAPSHOT`). */
export const PROGRESS_ACTIVITY = 'agenttool.progress';
/** The `name` of the `CUSTOM` event that asks or answers a call's approval. */
export const APPROVAL_EVENT = 'agenttool.approval';
/** The `name` of the `CUSTOM` event that carries a call's question or its answer. */
export const QUESTION_EVENT = 'agenttool.question';

/** What a call's progress activity holds: the update as text, and its numbers when it has them. */
export type ProgressContent = {
  /** The call. */
  readonly toolCallId: string;
  /** Its tool. */
  readonly toolName: string;
  /** The update's output as text (parts one a line, `[image]` for an image). */
  readonly text: string;
  /** How far the tool is, when the update is a `ProgressInfo`. */
  readonly progress?: number;
  /** Out of how much, when known. */
  readonly total?: number;
};

/** One AG-UI 1.0 event, as `toAgUiEvents` writes it. */
export type AgUiEvent =
  | {
      readonly type: 'RUN_STARTED';
      readonly threadId: string;
      readonly runId: string;
      readonly protocolVersion?: string;
    }
  | {
      readonly type: 'RUN_FINISHED';
      readonly threadId: string;
      readonly runId: string;
      readonly outcome?: { readonly type: 'success' };
      /** How the loop ended: `{ reason, turns }`. */
      readonly result?: unknown;
    }
  | { readonly type: 'RUN_ERROR'; readonly message: string; readonly code?: string }
  | { readonly type: 'STEP_STARTED'; readonly stepName: string }
  | { readonly type: 'STEP_FINISHED'; readonly stepName: string }
  | { readonly type: 'TEXT_MESSAGE_START'; readonly messageId: string; readonly role: 'assistant' }
  | { readonly type: 'TEXT_MESSAGE_CONTENT'; readonly messageId: string; readonly delta: string }
  | { readonly type: 'TEXT_MESSAGE_END'; readonly messageId: string }
  | {
      readonly type: 'TOOL_CALL_START';
      readonly toolCallId: string;
      readonly toolCallName: string;
      readonly parentMessageId?: string;
    }
  | { readonly type: 'TOOL_CALL_ARGS'; readonly toolCallId: string; readonly delta: string }
  | { readonly type: 'TOOL_CALL_END'; readonly toolCallId: string }
  | {
      readonly type: 'TOOL_CALL_RESULT';
      readonly messageId: string;
      readonly toolCallId: string;
      /** What the model reads, as text. */
      readonly content: string;
      readonly role: 'tool';
    }
  | {
      readonly type: 'ACTIVITY_SNAPSHOT';
      readonly messageId: string;
      readonly activityType: typeof PROGRESS_ACTIVITY;
      readonly content: ProgressContent;
    }
  | { readonly type: 'CUSTOM'; readonly name: string; readonly value: unknown };
