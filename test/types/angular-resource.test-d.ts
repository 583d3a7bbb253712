/**
 * `toolBatchResource` (`agenttool/angular`) is an Angular `ResourceRef` of the calls' states, with
 * the items for the model once every call ended. Checked by `npm run typecheck` (nothing here
 * runs).
 */
import type { ResourceRef, Signal } from '@angular/core';
import { expectTypeOf } from 'expect-type';
import { toolBatchResource, type ToolBatchResource } from '../../adapters/angular/index.js';
import type {
  Approval,
  CallState,
  FunctionCallOutputItem,
  Job,
  OutputItem,
  ToolSet,
} from '../../index.js';

declare const items: readonly OutputItem[];
declare const tools: ToolSet;
declare const jobs: readonly Job[];

const batch = toolBatchResource({ params: () => ({ items, tools }) });
expectTypeOf(batch).toMatchTypeOf<ResourceRef<readonly CallState[]>>();
expectTypeOf(batch.value()).toEqualTypeOf<readonly CallState[]>();
expectTypeOf(batch.outputs).toEqualTypeOf<Signal<FunctionCallOutputItem[] | undefined>>();
expectTypeOf(batch.running()).toEqualTypeOf<boolean>();
expectTypeOf<ToolBatchResource['decide']>().parameters.toEqualTypeOf<[number, Approval]>();
// A plain yes or no, or the person's note and corrected arguments.
batch.decide(0, true);
batch.decide(0, { approved: false, note: 'not the prod folder' });
batch.decide(0, { approved: true, args: { path: '/srv/test' }, note: 'test folder only' });

// Jobs made already, none at all, and the engine's own options.
toolBatchResource({
  params: () => (jobs.length === 0 ? undefined : { jobs }),
  needsApproval: (job) => job.tool.annotations?.readOnlyHint !== true,
  execute: { maxParallel: 2, timeout: 5_000 },
});
// @ts-expect-error: the resource owns the batch's signal.
toolBatchResource({ params: () => ({ jobs }), execute: { signal: new AbortController().signal } });
// @ts-expect-error: a batch is items with their ToolSet, or jobs.
toolBatchResource({ params: () => ({ items }) });
