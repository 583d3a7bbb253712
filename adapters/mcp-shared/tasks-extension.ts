/**
 * MCP's tasks extension, as both sides name it: the server that serves tasks and the client that
 * follows them (see docs/mcp.md).
 *
 * @module
 */

/** The extension's identifier, as clients declare it and servers advertise it. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
