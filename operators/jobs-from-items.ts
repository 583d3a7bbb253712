import { throwError } from 'rxjs';
import type { Tool } from '../lib/contract.js';
import { NoToolError } from '../lib/errors.js';
import type { FunctionCallItem, OutputItem } from '../lib/open-responses.js';
import type { ToolSet } from '../lib/tool-set.js';
import type { Job } from './job.js';

/**
 * Turns the function_call items of a model's output into jobs, in the model's order.
 *
 * ```
 *   items   [message, call r1 "read", reasoning, call r2 "nope"]
 *
 *           jobsFromItems(items, toolSet)
 *
 *   jobs    [{ tool: read, call: r1 }, { tool: missingTool("nope"), call: r2 }]
 * ```
 *
 * Only items of type `function_call` are taken; every other item is skipped. A call's id is the
 * item's `call_id` and its arguments the item's `arguments` text, untouched. A name the set does
 * not hold does not throw: its job's tool fails with a NoToolError (code `no_tool`), so the model
 * learns of it as it learns of any failure, in the output item of that call.
 *
 * ## Example
 *
 * ```ts
 * const jobs = jobsFromItems(response.output, toolSet);
 * const outputs = toOutputItems(jobs, await batchResults(jobs));
 * ```
 *
 * @see {@link toOutputItems} for the way back.
 * @see {@link missingTool} for the tool an unknown name gets.
 * @param items A response's output items, in order.
 * @param tools The tools the model was offered; only `lookup` is used.
 * @return One job per function_call item, in order.
 */
export function jobsFromItems(items: Iterable<OutputItem>, tools: Pick<ToolSet, 'lookup'>): Job[] {
  const jobs: Job[] = [];
  for (const item of items) {
    if (item.type !== 'function_call') continue;
    const call = item as FunctionCallItem;
    const tool = tools.lookup(call.name) ?? missingTool(call.name);
    jobs.push({ tool, call: { id: call.call_id, args: call.arguments ?? '' } });
  }
  return jobs;
}

/**
 * The tool that stands in for a name no tool answers to: every call of it fails with
 * `NoToolError(call.id, name)`, whose message reads `no tool for call "<id>": unknown tool
 * "<name>"`.
 *
 * @param name The name the model asked for.
 * @return A tool named `name` whose every call fails with a NoToolError.
 */
export function missingTool(name: string): Tool {
  return {
    name,
    description: '',
    execute: (call) => throwError(() => new NoToolError(call.id, name)),
  };
}
