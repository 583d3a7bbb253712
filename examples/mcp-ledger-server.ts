/**
 * An MCP server whose tool keeps state per account, for running several instances behind a
 * balancer that routes each account to one instance (examples/nginx/by-resource.conf):
 * `ledger_append` names its resource from its `account` argument and mirrors that argument into
 * the `Mcp-Param-Account` header (`x-mcp-header`), which clients of MCP 2026-07-28 send.
 *
 *   node --import tsx examples/mcp-ledger-server.ts --http 8101 --instance a
 *
 * @module
 */
import { z } from 'zod';
import { createMcpServer, serveHttp } from '../adapters/mcp-server/index.js';
import { tool } from '../index.js';

const arg = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
};
const instance = arg('--instance', 'a');
/** Each account's entries, in the order appended: this instance's memory only. */
const ledgers = new Map<string, string[]>();

const ledgerAppend = tool({
  name: 'ledger_append',
  description: "Appends an entry to an account's ledger; answers with the ledger so far.",
  parameters: z.object({
    // Mirrored into the Mcp-Param-Account header: the balancer routes on it.
    account: z.string().min(1).meta({ 'x-mcp-header': 'Account' }),
    entry: z.string(),
  }),
  // Calls on one account run one after another (in a batch, and so in the order sent).
  resource: ({ account }) => `account:${account}`,
  execute: async ({ account, entry }) => {
    // A moment of work, during which a call on another instance could have raced this one.
    await new Promise((resolve) => setTimeout(resolve, 2));
    const ledger = ledgers.get(account) ?? [];
    ledgers.set(account, ledger);
    ledger.push(entry);
    return JSON.stringify({ instance, entries: ledger });
  },
});

const server = await serveHttp({
  port: Number(arg('--http', '3000')),
  stateless: true,
  factory: () => createMcpServer({ name: 'ledger', version: '0.1.0' }, [ledgerAppend]),
});
console.error(`instance ${instance} serving ledger_append at ${server.url}`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
