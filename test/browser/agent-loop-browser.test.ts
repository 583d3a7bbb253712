import { expect } from 'chai';
import { bundle } from '../support/bundle.js';
import { scaled } from '../support/time.js';

describe('agentLoop in a browser bundle', function () {
  this.timeout(scaled(60_000));

  it('bundles for the browser with no Node built-in, beside tool() and the engine', async () => {
    // bundle() throws with esbuild's errors where a module needs a Node built-in.
    const loop = await bundle(
      "import { agentLoop, tool } from './browser.ts'; globalThis.x = [agentLoop, tool];",
    );
    const engine = await bundle(
      "import { executeBatch, tool } from './browser.ts'; globalThis.x = [executeBatch, tool];",
    );
    const inputs = Object.keys(loop.metafile.inputs);
    expect(
      inputs.filter((path) => /^node:|node_modules\/(openai|@anthropic-ai)\//.test(path)),
    ).to.deep.equal([]);
    // The loop is the engine plus its three readers and formats: about 6.4 KB min+gzip.
    expect(loop.gzipped - engine.gzipped).to.be.below(8192);
  });
});
