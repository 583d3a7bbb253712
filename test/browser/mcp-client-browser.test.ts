import { expect } from 'chai';
import { builtinModules } from 'node:module';
import { resolve } from 'node:path';
import { MCP_CLIENT_BUDGET, mcpClientAdded } from '../../bench/scenarios/bundle-size.js';
import { bundle } from '../support/bundle.js';
import { root } from '../support/cli.js';
import { scaled } from '../support/time.js';

describe('agenttool/mcp/client in the browser', function () {
  this.timeout(scaled(60_000));

  it('bundles for the browser with no Node built-in', async () => {
    const { metafile } = await bundle(
      `import { connectMcp, httpTransport } from './adapters/mcp-client/index.js';
       export const connect = (url: string) => connectMcp(httpTransport(url));`,
    );
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    const imported = Object.values(metafile.inputs).flatMap((input) =>
      input.imports.map((i) => i.path),
    );
    expect(imported.filter((path) => builtins.has(path))).to.deep.equal([]);
    expect(
      Object.keys(metafile.inputs).filter((path) => path.includes('client/stdio')),
    ).to.deep.equal([]);
  });

  it(`connectMcp adds at most ${MCP_CLIENT_BUDGET / 1024} KB min+gzip over the SDK's own client, in a page that runs batches`, async () => {
    const { added, sdk } = await mcpClientAdded(
      resolve(root, 'browser.ts'),
      resolve(root, 'adapters/mcp-client/index.ts'),
      root,
    );
    expect(sdk).to.be.above(50 * 1024); // the SDK's client is in both pages
    expect(added).to.be.at.most(MCP_CLIENT_BUDGET);
  });

  it('the stdio transport is an entry point of its own', async () => {
    const stdio = await import('../../adapters/mcp-stdio/index.js');
    const client = await import('../../adapters/mcp-client/index.js');
    expect(Object.keys(stdio)).to.deep.equal(['stdioTransport']);
    expect(client).to.not.have.property('stdioTransport');
  });
});
