import { expect } from 'chai';
import { addedBytes, BUDGET } from '../../bench/scenarios/bundle-size.js';
import { consumerFolder } from '../support/package.js';
import { scaled } from '../support/time.js';

describe('bundle size', function () {
  this.timeout(scaled(180_000));

  it(`tool and executeBatch add at most ${BUDGET / 1024} KB min+gzip to a browser app`, async () => {
    // Through the built package's exports, as an app's bundler resolves it.
    const { added, modules } = await addedBytes('agenttool', consumerFolder('bundle-app'));
    const heavy = modules.filter((path) =>
      /node_modules\/(ajv|zod-to-json-schema|fast-uri|re2js)\/|ajv-formats\/dist\/index|zod\/v3\/|locales\//.test(
        path,
      ),
    );
    expect(heavy, 'modules a zod 4 browser app does not need').to.deep.equal([]);
    expect(added).to.be.at.most(BUDGET);
  });
});
