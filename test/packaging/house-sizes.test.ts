/**
 * The shipped sources stay readable (docs/architecture.md): no file over 400 lines and no function
 * over 80, but for the exceptions below, each saying why.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { root } from '../support/cli.js';
import { sourceFiles } from '../support/sources.js';

/** The folders and root files whose sources ship (package.json, `files`, built from these). */
const SHIPPED = [
  'lib',
  'operators',
  'adapters',
  'cli',
  'testing',
  'index.ts',
  'root.ts',
  'browser.ts',
  'schema.ts',
];

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

/** Files allowed past 400 lines, and why. */
const LONG_FILES: Readonly<Record<string, string>> = {
  'cli/options.ts': 'the option table: one entry per option, which parses and documents it',
};

const files = SHIPPED.flatMap(sourceFiles).filter(
  (file) => !file.endsWith('.d.ts') && !/\.(test|spec)\.tsx?$/.test(file),
);

const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** Each function of `file` with a body longer than `limit` lines, as `file:line name (n lines)`. */
function longFunctions(file: string, text: string, limit: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const long: string[] = [];
  const lineOf = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = lineOf(node.getStart());
      const lines = lineOf(node.getEnd()) - first + 1;
      if (lines > limit) {
        const holder = node.parent;
        const name =
          node.name?.getText() ??
          (ts.isVariableDeclaration(holder) || ts.isPropertyDeclaration(holder)
            ? holder.name.getText()
            : '(anonymous)');
        long.push(`${file}:${first + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

describe('the shipped sources: file and function sizes', () => {
  it('reads the shipped sources, the router and the option table among them', () => {
    expect(files).to.include.members(['adapters/mcp-server/call-router.ts', 'cli/options.ts']);
    expect(files.length).to.be.greaterThan(200);
  });

  it(`no file over ${MAX_FILE_LINES} lines but the exceptions, each still long enough to need it`, () => {
    const long = files.filter(
      (file) => lineCount(readFileSync(join(root, file), 'utf8')) > MAX_FILE_LINES,
    );
    expect(long).to.have.members(Object.keys(LONG_FILES));
  });

  it(`no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files.flatMap((file) =>
      longFunctions(file, readFileSync(join(root, file), 'utf8'), MAX_FUNCTION_LINES),
    );
    expect(long).to.deep.equal([]);
  });

  it('finds a long function where there is one (the scanner is not blind)', () => {
    const body = Array.from({ length: 90 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = `export class A {\n  run(): void {\n${body}\n  }\n}\nconst f = () => {\n${body}\n};\n`;
    expect(longFunctions('a.ts', text, MAX_FUNCTION_LINES)).to.deep.equal([
      'a.ts:2 run (92 lines)',
      'a.ts:95 f (92 lines)',
    ]);
  });
});
