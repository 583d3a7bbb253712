/**
 * The wire encoders' own types are the SDKs' types: each chunk `toUIMessageStream` writes is one
 * of the AI SDK's `UIMessageChunk`s, and each event `toAgUiEvents` writes one of `@ag-ui/core`'s
 * events. Checked by `npm run typecheck` (nothing here runs).
 */
import type { UIMessageChunk as AiUIMessageChunk } from 'ai';
import { expectTypeOf } from 'expect-type';
import type { UIMessageChunk, WireQuestion } from '../../adapters/wire/index.js';

expectTypeOf<UIMessageChunk>().toMatchTypeOf<AiUIMessageChunk>();
// With the question's data part declared, as a client that reads it types its messages.
expectTypeOf<UIMessageChunk>().toMatchTypeOf<
  AiUIMessageChunk<unknown, { 'agenttool-question': WireQuestion }>
>();
