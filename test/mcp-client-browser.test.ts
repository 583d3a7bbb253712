import { expect } from 'chai';
import { builtinModules } from 'node:module';
import { bundle } from './support/bundle.js';

describe('agenttool/mcp/client in the browser', function () {
  this.timeout(60_000);

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

  it('the stdio transport is an entry point of its own', async () => {
    const stdio = await import('../adapters/mcp-stdio/index.js');
    const client = await import('../adapters/mcp-client/index.js');
    expect(Object.keys(stdio)).to.deep.equal(['stdioTransport']);
    expect(client).to.not.have.property('stdioTransport');
  });
});
