/**
 * Tool sets and function-tool definitions.
 *
 * @module
 */
import type { Tool } from './contract.js';
import type { FunctionTool, JsonSchema } from './open-responses.js';

/** The schema of a tool that takes no arguments. */
export const NO_ARGUMENTS: JsonSchema = Object.freeze({
  type: 'object',
  properties: Object.freeze({}),
  required: Object.freeze([]),
}) as JsonSchema;

/** The function names the Responses API accepts: 1 to 64 ASCII letters, digits, `_` and `-`. */
export const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The function tool that describes `tool` on a request: `strict` is always there (true only for a
 * tool whose schema follows the strict rules, as the OpenAI SDK's types require it), and
 * `parameters` is never null (a tool without arguments gets the empty object schema).
 */
export function definition(tool: Tool): FunctionTool {
  const strict = tool.strict === true;
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters:
      tool.parameters ?? (strict ? { ...NO_ARGUMENTS, additionalProperties: false } : NO_ARGUMENTS),
    strict,
  };
}

/**
 * A list of tools with lookup by name. The order is the caller's and is kept by
 * {@link ToolSet.definitions}. The set does not check its names when built: call
 * {@link ToolSet.validate} where a bad name should stop the application.
 */
export class ToolSet implements Iterable<Tool> {
  private readonly list: readonly Tool[];
  private readonly byName = new Map<string, Tool>();

  constructor(tools: Iterable<Tool>) {
    this.list = [...tools];
    // The first tool of a name wins, as validate() reports the later ones.
    for (const tool of this.list) if (!this.byName.has(tool.name)) this.byName.set(tool.name, tool);
  }

  /** The tools, in order. */
  get tools(): readonly Tool[] {
    return this.list;
  }

  /** How many tools the set holds. */
  get size(): number {
    return this.list.length;
  }

  /** Iterates the tools, in order. */
  [Symbol.iterator](): Iterator<Tool> {
    return this.list[Symbol.iterator]();
  }

  /** The tool named `name`, or undefined. */
  lookup(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  /** The function tools for a request, in order. */
  definitions(): FunctionTool[] {
    return this.list.map(definition);
  }

  /**
   * Throws for a name a model provider would refuse, or a name used twice, naming each problem in
   * one message. A function name is what the Responses API accepts: 1 to
   * 64 letters, digits, `_` and `-`.
   */
  validate(): void {
    const seen = new Set<string>();
    const problems: string[] = [];
    this.list.forEach((tool, i) => {
      if (typeof tool.name !== 'string' || tool.name === '')
        problems.push(`tool ${i} has an empty name`);
      else if (!FUNCTION_NAME.test(tool.name))
        problems.push(
          `tool name ${JSON.stringify(tool.name.length > 80 ? `${tool.name.slice(0, 79)}…` : tool.name)} is not a function name (1 to 64 letters, digits, "_" and "-")`,
        );
      else if (seen.has(tool.name)) problems.push(`duplicate tool name "${tool.name}"`);
      else seen.add(tool.name);
    });
    if (problems.length > 0) throw new Error(`tool set: ${problems.join('; ')}`);
  }

  /**
   * Closes every tool that has `close`, in order, each even when an earlier one failed; then
   * rejects with the one failure, or with an AggregateError joining several. The application's to call,
   * once, when the session that built the tools is over.
   */
  async close(): Promise<void> {
    const failures: unknown[] = [];
    for (const tool of this.list) {
      if (tool.close === undefined) continue;
      try {
        await tool.close();
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1)
      throw new AggregateError(failures, `tool set: ${failures.length} tools failed to close`);
  }
}
