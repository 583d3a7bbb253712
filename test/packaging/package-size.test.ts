/**
 * What an install downloads: `npm pack --dry-run` of the built package against the budget the
 * README states ("The package", Size).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { root } from '../support/cli.js';
import { buildPackage } from '../support/package.js';
import { scaled } from '../support/time.js';

/**
 * The tarball's budget, in bytes packed (README.md, "The package"): 414 KB when last measured,
 * about 1% over it.
 */
const PACKED_BUDGET = 418 * 1000;

interface PackedFile {
  path: string;
  size: number;
}
interface Packed {
  size: number;
  entryCount: number;
  files: PackedFile[];
}

/** `npm pack --dry-run --json` of dist/ as `npm run build` leaves it (the web page included). */
function dryRun(): Packed {
  buildPackage();
  if (!existsSync(join(root, 'dist', 'ui')))
    execFileSync(process.execPath, ['--import', 'tsx', 'cli/ui/build-page.ts'], { cwd: root });
  const json = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
  });
  return (JSON.parse(json) as Packed[])[0]!;
}

describe('the package, as npm packs it', function () {
  this.timeout(scaled(180_000));
  let packed: Packed;
  before(() => {
    packed = dryRun();
  });

  it(`stays within its budget: ${PACKED_BUDGET / 1000} KB packed`, () => {
    expect(packed.size, `${packed.entryCount} files`).to.be.at.most(PACKED_BUDGET);
  });

  it('is the budget the README states', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    expect(readme).to.include(`The tarball's budget is ${PACKED_BUDGET / 1000} KB packed`);
  });

  it('ships the built package and its docs, no sources, tests, examples or build scripts', () => {
    const outside = packed.files
      .map((file) => file.path)
      .filter((path) => !/^(dist\/|README\.md$|LICENSE$|package\.json$)/.test(path));
    expect(outside).to.deep.equal([]);
    const unwanted = packed.files
      .map((file) => file.path)
      .filter((path) => /\.test\.|\.map$|\.ts$(?<!\.d\.ts)|\/build-page\.js$/.test(path));
    expect(unwanted).to.deep.equal([]);
  });

  it("keeps the CLI's types out: no entry point exports them", () => {
    expect(packed.files.filter((file) => /^dist\/cli\/.*\.d\.ts$/.test(file.path))).to.deep.equal(
      [],
    );
  });
});
