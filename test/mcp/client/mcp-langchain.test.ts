/**
 * LangChain's MCP adapters (`@langchain/mcp-adapters`) over createMcpServer: a served tool that
 * records what it started reaches the LangChain tool, and so the model, as its plain text. The
 * records travel only to a client that asks for them (see asksForRecords), and these adapters do
 * not ask.
 */
import { loadMcpTools } from '@langchain/mcp-adapters';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { expect } from 'chai';
import { z } from 'zod';
import { createMcpServer } from '../../../adapters/mcp-server/index.js';
import { tool } from '../../../index.js';
import { scaled } from '../../support/time.js';

/** Starts something, records its handle (as `bash` records its process group), answers text. */
const start = tool({
  name: 'start_job',
  description: 'Starts a job and says so.',
  parameters: z.object({ name: z.string() }),
  async execute({ name }, context) {
    const handle = { recordNS: () => 'shell:process-group', pgid: 4242 };
    await context.record(handle);
    return `started ${name}`;
  },
});

describe("LangChain's MCP adapters against createMcpServer", function () {
  this.timeout(scaled(20_000));

  it("get a recording tool's result as its plain text, no records", async () => {
    const server = createMcpServer({ name: 'jobs', version: '1.0.0' }, [start]);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'langchain', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const [lc] = await loadMcpTools('jobs', client);
      expect(lc!.name).to.equal('start_job');
      const output = await lc!.invoke({ name: 'build' });
      expect(output).to.equal('started build');
    } finally {
      await client.close();
    }
  });
});
