/**
 * README.md says which Node the package needs (package.json's engines) and which developing it
 * needs (the highest Node a dev dependency asks for, whose `npm install` warns EBADENGINE on less).
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');

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

  it('gives the Node developing it needs: the highest a dev dependency asks for', () => {
    const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string } }>;
    };
    let highest = [0, 0, 0];
    for (const entry of Object.values(lock.packages)) {
      const at = entry.engines?.node === undefined ? undefined : floor(entry.engines.node);
      if (at !== undefined && above(at, highest)) highest = at;
    }
    expect(readme).to.include(`Developing it asks for Node ${highest[0]}.${highest[1]} or later`);
    expect(readme).to.include('EBADENGINE');
  });
});
