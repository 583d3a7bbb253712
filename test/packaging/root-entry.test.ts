/**
 * What the package root (`agenttool`) holds: the values README.md and the guides in docs/ use,
 * the same under Node (index.ts) and in a browser bundle (browser.ts); every other value of the
 * modules it draws from is in the entry it belongs to (`agenttool/operators`, `agenttool/wire`...).
 * Read from the sources, through the paths package.json's exports build them from.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from '../support/cli.js';
import { scaled } from '../support/time.js';

type Target = { types: string; browser?: string; default: string };
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, Target | string>;
};

/** The runtime names of the source module a built file (`./dist/x.js`) is compiled from. */
async function valuesOf(built: string): Promise<string[]> {
  const source = join(root, built.replace(/^\.\/dist\//, ''));
  return Object.keys((await import(pathToFileURL(source).href)) as object).sort();
}

/** README.md and every guide in docs/, as one text. */
function guides(): string {
  const docs = readdirSync(join(root, 'docs')).filter((file) => file.endsWith('.md'));
  return ['README.md', ...docs.map((file) => join('docs', file))]
    .map((file) => readFileSync(join(root, file), 'utf8'))
    .join('\n');
}

/** The targets of an entry of package.json's exports. */
function entry(name: string): Target {
  const target = manifest.exports[name];
  if (typeof target !== 'object') throw new Error(`package.json exports no ${name}`);
  return target;
}
const rootEntry = entry('.');

describe('the package root', function () {
  // Its first import compiles the sources the entries reach (the MCP server and client among them).
  this.timeout(scaled(60_000));

  it('exports only values that README.md or a guide in docs/ names', async () => {
    const text = guides();
    const values = await valuesOf(rootEntry.default);
    expect(values).to.include.members(['tool', 'executeBatch', 'toUIMessageStream']);
    const unnamed = values.filter((name) => !new RegExp(`\\b${name}\\b`).test(text));
    expect(unnamed, 'root values the docs never name: move each to its entry').to.deep.equal([]);
  });

  it('exports the same names in a browser bundle as under Node', async () => {
    expect(rootEntry.browser).to.be.a('string');
    expect(await valuesOf(rootEntry.browser!)).to.deep.equal(await valuesOf(rootEntry.default));
  });

  it('leaves no value of the contract, the engine or the wire without an entry', async () => {
    const entries = Object.keys(manifest.exports).filter((name) => name !== './package.json');
    const all = await Promise.all(entries.map((name) => valuesOf(entry(name).default)));
    const exported = new Set(all.flat());
    const sources = ['lib/index.js', 'operators/index.js', 'adapters/wire/index.js'];
    const values = (await Promise.all(sources.map((file) => valuesOf(`./dist/${file}`)))).flat();
    expect(values.filter((name) => !exported.has(name))).to.deep.equal([]);
  });

  it('the values it leaves to other entries are there', async () => {
    const operators = await valuesOf(entry('./operators').default);
    const wire = await valuesOf(entry('./wire').default);
    expect(operators).to.include.members(['initialCallStates', 'outputPreview']);
    expect(wire).to.include.members([
      'AG_UI_HEADERS',
      'APPROVAL_EVENT',
      'PROGRESS_ACTIVITY',
      'QUESTION_DATA_TYPE',
      'QUESTION_EVENT',
    ]);
  });
});
