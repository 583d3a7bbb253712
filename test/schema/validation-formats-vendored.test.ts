/**
 * The interpreter's formats table is an ES module copy of ajv-formats' (so a browser bundle gets
 * no CommonJS): it must stay what ajv checks, format for format, or the two checkers disagree.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { fullFormats } from '../../lib/validation/interpreter/ajv-full-formats.js';
import { root } from '../support/cli.js';

const require = createRequire(import.meta.url);
const original = (
  require('ajv-formats/dist/formats.js') as { fullFormats: Record<string, unknown> }
).fullFormats;

/**
 * A format definition as text: a RegExp's source and flags, a function as `function` (its code is
 * reformatted by the TypeScript loader; what it checks is compared below), else JSON.
 */
function shape(def: unknown): unknown {
  if (def instanceof RegExp) return `/${def.source}/${def.flags}`;
  if (typeof def === 'function') return 'function';
  if (typeof def === 'object' && def !== null)
    return Object.fromEntries(Object.entries(def).map(([key, value]) => [key, shape(value)]));
  return def;
}

describe('the formats table the interpreter reads', () => {
  it("is the installed ajv-formats' full table, format for format", () => {
    const copy = fullFormats as Record<string, unknown>;
    expect(Object.keys(copy)).to.deep.equal(Object.keys(original));
    for (const name of Object.keys(original))
      expect(shape(copy[name]), name).to.deep.equal(shape(original[name]));
  });

  it('names the ajv-formats version it was copied from, the one installed', () => {
    const { version } = JSON.parse(
      readFileSync(`${root}/node_modules/ajv-formats/package.json`, 'utf8'),
    ) as { version: string };
    const source = readFileSync(`${root}/lib/validation/interpreter/ajv-full-formats.ts`, 'utf8');
    expect(source).to.include(`ajv-formats ${version}'s full formats table`);
  });

  it('checks as the original does', () => {
    const check = (table: Record<string, unknown>, name: string, value: string | number) => {
      const def = table[name] as
        | { validate: RegExp | ((v: string | number) => boolean) }
        | RegExp
        | ((v: string | number) => boolean);
      if (def instanceof RegExp) return def.test(String(value));
      if (typeof def === 'object' && def.validate instanceof RegExp)
        return def.validate.test(String(value));
      return typeof def === 'function'
        ? def(value)
        : (def.validate as (v: string | number) => boolean)(value);
    };
    const samples: [string, string | number][] = [
      ['int32', 2 ** 31],
      ['int32', -(2 ** 31)],
      ['int64', 1.5],
      ['double', 1e308],
      ['date-time', '2024-02-29T12:00:00Z'],
      ['date-time', '2023-02-29T12:00:00Z'],
      ['date', '2024-13-01'],
      ['uri', 'https://example.com/a?b#c'],
      ['uri', 'not a uri'],
      ['regex', '(unclosed'],
      ['byte', 'aGVsbG8='],
      ['byte', 'a'],
      ['time', '23:59:60Z'],
      ['time', '24:00:00Z'],
      ['iso-time', '10:00:00'],
      ['iso-date-time', '2024-01-01 10:00:00'],
      ['date', '2023-02-29'],
      ['uri', '/relative'],
    ];
    for (const [name, value] of samples)
      expect(
        check(fullFormats as Record<string, unknown>, name, value),
        `${name} ${value}`,
      ).to.equal(check(original, name, value));
  });
});
