/**
 * What a server that re-serves a remote tool (a proxy: `createMcpServer` over `connectMcp`'s
 * tools) tells the remote call about its own client's MCP tasks, through the call's context: the
 * remote call asks its server for a task only when that client takes tasks from this one, so a
 * tool that runs only as a task is refused as its server would refuse it, and a call its server
 * answers with a task becomes this server's own task (docs/mcp.md, "Tasks through a proxy").
 *
 * @module
 */

/** A served call's word on tasks, to the remote tool it runs. */
export interface TaskRelay {
  /** Whether this server serves the call to its client as a task, should it run as one. */
  readonly declares: boolean;
  /** The remote server answered the call with a task: this server makes the call its own task. */
  upstreamTask(): void;
}

const relays = new WeakMap<object, TaskRelay>();

/** Gives `context` (a served call's) its word on tasks. */
export function relayTasks(context: object, relay: TaskRelay): void {
  relays.set(context, relay);
}

/** The word on tasks of the server serving the call of `context`, if one re-serves it. */
export function taskRelayOf(context: object): TaskRelay | undefined {
  return relays.get(context);
}
