/**
 * README.md says which Node the package needs (package.json's engines) and what developing it on
 * an older Node than the highest a dev dependency asks for means (`npm ci` warns EBADENGINE).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';

const root = new URL('../..', import.meta.url);
// Its prose as one line: where a sentence wraps is the formatter's business.
const readme = readFileSync(new URL('README.md', root), 'utf8').replace(/\s+/g, ' ');

/** The lowest version `range` accepts when it is `>=x.y[.z]`, else undefined. */
function floor(range: string): number[] | undefined {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  return match === null ? undefined : match.slice(1).map((part) => Number(part ?? 0));
}

function above(a: number[], b: number[]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return false;
}

describe('README.md on Node versions', () => {
  it('gives the Node the package needs, as package.json’s engines say', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      engines: { node: string };
    };
    const [major, minor] = floor(pkg.engines.node)!;
    expect(readme).to.include(`The package runs on Node ${major}.${minor} or later`);
  });

  it('names the highest Node a dev dependency asks for, past which npm ci warns nothing', () => {
    const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string } }>;
    };
    let highest = [0, 0, 0];
    for (const entry of Object.values(lock.packages)) {
      const at = entry.engines?.node === undefined ? undefined : floor(entry.engines.node);
      if (at !== undefined && above(at, highest)) highest = at;
    }
    expect(readme).to.include(`On Node ${highest[0]}.${highest[1]} or later there are none`);
    expect(readme).to.include('EBADENGINE');
  });
});
