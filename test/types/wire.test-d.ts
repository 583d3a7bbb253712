/**
 * The wire encoders' own types are the SDKs' types: each chunk `toUIMessageStream` writes is one
 * of the AI SDK's `UIMessageChunk`s, and each event `toAgUiEvents` writes one of `@ag-ui/core`'s
 * events. Checked by `npm run typecheck` (nothing here runs).
 */
import type { Event as AgUiCoreEvent, EventType } from '@ag-ui/core';
import type { UIMessageChunk as AiUIMessageChunk } from 'ai';
import { expectTypeOf } from 'expect-type';
import type { AgUiEvent, UIMessageChunk, WireQuestion } from '../../adapters/wire/index.js';

expectTypeOf<UIMessageChunk>().toMatchTypeOf<AiUIMessageChunk>();
// With the question's data part declared, as a client that reads it types its messages.
expectTypeOf<UIMessageChunk>().toMatchTypeOf<
  AiUIMessageChunk<unknown, { 'agenttool-question': WireQuestion }>
>();

/** `@ag-ui/core`'s event of the wire name `T`: its `type` is the enum member of that value. */
type AgUiCoreEventNamed<T extends string> = Extract<AgUiCoreEvent, { type: `${T}` }>;
/** Each of our events with its `type` as `@ag-ui/core`'s enum member of the same string. */
type WithEnumType<E> = E extends { type: infer T extends string }
  ? Omit<E, 'type'> & { type: AgUiCoreEventNamed<T>['type'] }
  : never;

expectTypeOf<WithEnumType<AgUiEvent>>().toMatchTypeOf<AgUiCoreEvent>();
// The enum's values are the strings we write.
expectTypeOf<`${EventType}`>().toMatchTypeOf<string>();
expectTypeOf<AgUiEvent['type']>().toMatchTypeOf<`${EventType}`>();
