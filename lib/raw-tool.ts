/**
 * `rawTool()`: a tool from plain values, for schemas that come from elsewhere.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import { functionExecute, type ResultMapping } from './execution.js';
import type { JsonSchema } from './open-responses.js';
import { toResult } from './result.js';
import type {
  Annotations,
  Confinement,
  Replay,
  ResourceFunction,
  ResourceName,
  Tool,
  ToolCall,
  ToolContext,
  ToolEvent,
  ToolResult,
} from './contract.js';
import { namedResource } from './contract.js';

/** The optional properties every tool factory accepts; see {@link Tool}. */
export interface ToolProperties {
  /** The schema follows the strict rules; see {@link Tool.strict}. */
  strict?: boolean;
  /** Nothing else in a batch runs while this tool does; see {@link Tool.sequential}. */
  sequential?: boolean;
  /**
   * The shared state a call touches, or a function naming it from the call's arguments (parsed
   * from its JSON text), plain or counted (`{ key, capacity }`); see {@link Tool.resource}.
   */
  resource?: ResourceName | ResourceFunction;
  /** MCP's behavioural hints; see {@link Annotations}. */
  annotations?: Annotations;
  /** Whether a call with these raw arguments will run confined; see {@link Tool.confined}. */
  confined?: (args: string, context: ToolContext) => Confinement;
  /** Releases what the tool value owns beyond one call; see {@link Tool.close}. */
  close?: () => void | Promise<void>;
  /** Whether an interrupted call can run again; see {@link Tool.replay}. */
  replay?: Replay;
  /** Whether an MCP server may run the tool's calls as tasks; see {@link Tool.task}. */
  task?: boolean | 'required';
  /** Whether the model is answered before the tool's calls end; see {@link Tool.detach}. */
  detach?: boolean;
}

/** What {@link rawTool} is built from. */
export interface RawToolDefinition extends ToolProperties {
  /** The function name the model calls; not empty. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** Served verbatim and never validated here; undefined means no arguments. */
  parameters?: JsonSchema;
  /**
   * Runs one call with its raw arguments: returns a result, a Promise of one, or an Observable of
   * ToolEvents (passed through as they are). Progress goes through `context.progress`.
   */
  execute(
    call: ToolCall,
    context: ToolContext,
  ): ToolResult | PromiseLike<ToolResult> | Observable<ToolEvent>;
}

/** The properties {@link copyProperties} copies as they are, when set. */
const COPIED = ['strict', 'sequential', 'resource', 'replay', 'detach'] as const;

/** Copies the optional properties that are set, so readers see exactly what the author stated. */
export function copyProperties(target: Partial<Tool>, source: ToolProperties): void {
  // One loop for the values copied as they are: smaller in a browser bundle than a line each.
  for (const key of COPIED)
    if (source[key] !== undefined) Object.assign(target, { [key]: source[key] });
  // A fixed counted resource that cannot be is refused at definition, not at each call.
  if (typeof source.resource === 'object' && source.resource !== null)
    namedResource(target as Tool, '');
  if (source.annotations !== undefined)
    Object.assign(target, { annotations: Object.freeze({ ...source.annotations }) });
  if (source.confined !== undefined) target.confined = source.confined.bind(source);
  if (source.close !== undefined) target.close = source.close.bind(source);
  if (source.task !== undefined) {
    if (source.task !== true && source.task !== false && source.task !== 'required')
      throw new TypeError(
        `task must be true, false or 'required', got ${JSON.stringify(source.task)}`,
      );
    Object.assign(target, { task: source.task });
  }
}

/**
 * Builds a Tool from plain values and a function of the raw call: the untyped counterpart of
 * `tool()`, for a schema that comes from elsewhere (a remote server). `parameters` is served as
 * given and arguments are not validated: whoever owns the schema checks them. A result the
 * function returns is used as is; its Observable of events is passed through.
 *
 * @throws TypeError when `name` is empty or `execute` is not a function.
 */
export function rawTool(definition: RawToolDefinition): Tool {
  if (typeof definition.name !== 'string' || definition.name === '')
    throw new TypeError('rawTool: name must be a non-empty string');
  if (typeof definition.execute !== 'function')
    throw new TypeError(`rawTool "${definition.name}": execute must be a function`);
  const mapping: ResultMapping = {
    tool: definition.name,
    observableOfEvents: true,
    final: (value) =>
      typeof value === 'object' && value !== null && 'output' in value
        ? (value as ToolResult)
        : toResult(value, definition.name),
  };
  const execute = definition.execute;
  // One function per tool, not per call: the call is read from its own context.
  const run = (inner: ToolContext): unknown => execute.call(definition, inner.call, inner);
  const built: Tool = {
    name: definition.name,
    description: definition.description ?? '',
    execute: functionExecute(mapping, run),
  };
  if (definition.parameters !== undefined)
    Object.assign(built, { parameters: definition.parameters });
  copyProperties(built, definition);
  return built;
}
