/**
 * `agenttool/mcp/client`: an MCP server's tools as Tool values.
 *
 * @module agenttool/mcp/client
 */
export { connectMcp, McpRemote, type McpClientOptions } from './connect-mcp.js';
export { McpCallError, RemoteToolError, type McpErrorCode } from '../mcp-shared/mcp-errors.js';
export { httpTransport, type HttpTransportOptions, type McpTransport } from './mcp-transports.js';
export { RemoteTool } from './remote-tool.js';
export {
  headlessOAuthProvider,
  oauth,
  type AuthorizationResponse,
  type HeadlessOAuthOptions,
  type McpOAuthProvider,
  type RegisteredClient,
  workloadIdentityProvider,
  type WorkloadIdentityOptions,
} from './oauth.js';
export type { McpRoot, McpRoots } from './client-roots.js';
export type { McpLogMessage } from './server-log.js';
export { RECORDS_META_KEY } from '../mcp-shared/mcp-records.js';
export { RESOURCE_META_KEY, SEQUENTIAL_META_KEY } from '../mcp-shared/ordering-hints.js';
// The SDK's types this API uses, so that a module exporting what it returns names them through
// `agenttool/mcp/client` (under pnpm the SDK is not the application's to name).
export type { CallToolResult, McpTool } from '../mcp-shared/mcp-types.js';
export type {
  AuthProvider,
  Client,
  Implementation,
  OAuthClientProvider,
  Transport,
  VersionNegotiationOptions,
} from '@modelcontextprotocol/client';
