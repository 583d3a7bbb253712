import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findChromium, PACKAGED_CHROMIUM } from '../support/browser.js';
import { scaled } from '../support/time.js';

describe('finding a Chromium for the browser tests', function () {
  this.timeout(scaled(120_000));
  let folder: string;

  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'agenttool-finder-'));
    writeFileSync(join(folder, 'chromium'), '', { mode: 0o755 });
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('takes CHROMIUM_PATH or PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH first', async () => {
    const named = join(folder, 'chromium');
    expect(await findChromium({ CHROMIUM_PATH: named })).to.include({
      executablePath: named,
      source: 'env',
    });
    expect(await findChromium({ PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH: named, PATH: '' })).to.include(
      { executablePath: named, source: 'env' },
    );
  });

  it('refuses a named Chromium that is missing rather than trying another', async () => {
    const missing = join(folder, 'nowhere');
    let error: unknown;
    await findChromium({ CHROMIUM_PATH: missing }).catch((err: unknown) => (error = err));
    expect(String(error)).to.include(missing);
  });

  it('then looks on the PATH, before /usr/bin', async () => {
    expect(await findChromium({ PATH: folder })).to.include({
      executablePath: join(folder, 'chromium'),
      source: 'system',
    });
  });

  it('falls back to the Chromium of the npm package', async () => {
    const found = await findChromium({ CHROMIUM_PATH: PACKAGED_CHROMIUM });
    expect(found.source).to.equal(PACKAGED_CHROMIUM);
    expect(existsSync(found.executablePath)).to.equal(true);
  });
});
