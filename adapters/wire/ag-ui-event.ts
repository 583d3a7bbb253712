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
      /** The event's kind. */
      readonly type: 'RUN_STARTED';
      /** The conversation: `RunAgentInput.threadId`. */
      readonly threadId: string;
      /** This run: `RunAgentInput.runId`. */
      readonly runId: string;
      /** The protocol version this producer speaks: `1.0`. */
      readonly protocolVersion?: string;
    }
  | {
      /** The event's kind. */
      readonly type: 'RUN_FINISHED';
      /** The conversation: `RunAgentInput.threadId`. */
      readonly threadId: string;
      /** This run: `RunAgentInput.runId`. */
      readonly runId: string;
      /** Always a success: a loop that fails ends with `RUN_ERROR`. */
      readonly outcome?: {
        /** The run completed. */
        readonly type: 'success';
      };
      /** How the loop ended: `{ reason, turns }`. */
      readonly result?: unknown;
    }
  | {
      /** The event's kind. */
      readonly type: 'RUN_ERROR';
      /** The loop's error, for a person. */
      readonly message: string;
      /** The error's `code`, when it has one. */
      readonly code?: string;
    }
  | {
      /** The event's kind. */
      readonly type: 'STEP_STARTED';
      /** `turn <n>`. */
      readonly stepName: string;
    }
  | {
      /** The event's kind. */
      readonly type: 'STEP_FINISHED';
      /** `turn <n>`. */
      readonly stepName: string;
    }
  | {
      /** The event's kind. */
      readonly type: 'TEXT_MESSAGE_START';
      /** The text's id, as the model named it. */
      readonly messageId: string;
      /** Always the assistant. */
      readonly role: 'assistant';
    }
  | {
      /** The event's kind. */
      readonly type: 'TEXT_MESSAGE_CONTENT';
      /** The text's id, as the model named it. */
      readonly messageId: string;
      /** A piece of the text; never empty. */
      readonly delta: string;
    }
  | {
      /** The event's kind. */
      readonly type: 'TEXT_MESSAGE_END';
      /** The text's id, as the model named it. */
      readonly messageId: string;
    }
  | {
      /** The event's kind. */
      readonly type: 'TOOL_CALL_START';
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
      /** The call's tool. */
      readonly toolCallName: string;
      /** The turn's assistant message: its first text, else `<runId>-turn-<n>`. */
      readonly parentMessageId?: string;
    }
  | {
      /** The event's kind. */
      readonly type: 'TOOL_CALL_ARGS';
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
      /** A piece of the arguments' JSON text. */
      readonly delta: string;
    }
  | {
      /** The event's kind. */
      readonly type: 'TOOL_CALL_END';
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
    }
  | {
      /** The event's kind. */
      readonly type: 'TOOL_CALL_RESULT';
      /** The result's message: `<callId>-result`. */
      readonly messageId: string;
      /** The call's id (`call_id`). */
      readonly toolCallId: string;
      /** What the model reads, as text. */
      readonly content: string;
      /** Always `tool`. */
      readonly role: 'tool';
    }
  | {
      /** The event's kind. */
      readonly type: 'ACTIVITY_SNAPSHOT';
      /** The call's progress message: `<callId>-progress`. */
      readonly messageId: string;
      /** Always `agenttool.progress`. */
      readonly activityType: typeof PROGRESS_ACTIVITY;
      /** The update. */
      readonly content: ProgressContent;
    }
  | {
      /** The event's kind. */
      readonly type: 'CUSTOM';
      /** `agenttool.approval`, `agenttool.question` or `agenttool.error`. */
      readonly name: string;
      /** The approval, the question, or what could not be sent. */
      readonly value: unknown;
    };
