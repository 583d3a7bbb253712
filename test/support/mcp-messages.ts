/** Raw MCP messages for tests that speak the protocol without a client. */

/** The first request of a session, as a minimal client sends it. */
export const initializeRequest = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
} as const;
