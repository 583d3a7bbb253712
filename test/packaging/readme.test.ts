/**
 * The README's TypeScript runs as written, and the guides' in docs/ too. Every ```ts block of
 * README.md and docs/*.md is written to a file of its own (under test-output/readme/), compiled against this package with the project's compiler
 * options, and then run, one after another, in this process.
 *
 * The rule for a block:
 * - `agenttool` and its subpaths (`agenttool/mcp/server`, ...) resolve to this repository's
 *   sources, as package.json's `exports` map them; a relative import (`./examples/mcp-tools.js`)
 *   resolves from the folder of the file the block is in; anything else from node_modules.
 * - Every block is compiled, on its own: it imports what it uses, and declares what it takes from
 *   outside (`declare const response: OpenAI.Responses.Response; // the model's turn`).
 * - Every block is run, unless its fence says `no_run` (```ts no_run), as rustdoc has it: for a
 *   block that declares values (they do not exist at run time), needs a browser or Angular, starts
 *   another process or listens beyond loopback. A block that runs ends on its own: it closes what
 *   it opens. Its console output is kept, and shown only when it fails.
 * - A `console.log(...);` line that ends with a comment shows in the comment what it prints (as
 *   `console.log` formats it; spaces aside), and the test holds it to that: a description of what
 *   is printed goes on the line above instead.
 *
 * A failure names the line it is about: `README.md:123: ...`, `docs/mcp.md:45: ...`.
 */
import { expect } from 'chai';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'node:util';
import ts from 'typescript';
import { scaled } from '../support/time.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The files whose blocks run: the README, then each guide in docs/. */
const sources = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const outDir = join(root, 'test-output', 'readme');

interface Block {
  /** The file it is in, from the repository's root. */
  source: string;
  /** The line of the block's first line of code (1-based). */
  line: number;
  code: string;
  run: boolean;
  file: string;
}

function readBlocks(source: string): Block[] {
  const text = readFileSync(join(root, source), 'utf8');
  const stem = source.replace(/\.md$/, '').replace(/\//g, '-');
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```ts(?:\s+(.*))?$/.exec(lines[i]!);
    if (open === null) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    const code = lines.slice(start, end).join('\n');
    const line = start + 1;
    const run = !(open[1] ?? '').split(/[\s,]+/).includes('no_run');
    const file = join(outDir, `${stem.toLowerCase()}-line-${line}.ts`);
    blocks.push({ source, line, code, run, file });
    i = end;
  }
  return blocks;
}

/** `agenttool` and its subpaths to the sources, from package.json's `exports`. */
const packageEntries: Map<string, string> = (() => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, { default?: string } | string>;
  };
  const entries = new Map<string, string>();
  for (const [key, target] of Object.entries(pkg.exports)) {
    const built = typeof target === 'string' ? target : target.default;
    if (built === undefined || !built.startsWith('./dist/') || !built.endsWith('.js')) continue;
    entries.set(key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`, built.slice(7));
  }
  return entries;
})();

/** The block with its imports pointing at files, line for line. */
function rewriteImports(code: string, source: string): string {
  const base = dirname(join(root, source));
  return code.replace(/(from\s+|import\s*\(\s*)(['"])([^'"]+)\2/g, (all, head, quote, spec) => {
    let target: string | undefined;
    const entry = packageEntries.get(spec as string);
    if (entry !== undefined) target = join(root, entry);
    else if ((spec as string).startsWith('.')) target = resolve(base, spec as string);
    if (target === undefined) return all as string;
    const path = relative(outDir, target).split('\\').join('/');
    return `${head}${quote}${path.startsWith('.') ? path : `./${path}`}${quote}`;
  });
}

const blocks = sources.flatMap(readBlocks);
const diagnostics = new Map<string, string[]>();

/** What marks, in a block's output, that the next line printed is to read as `expected`. */
const EXPECT = '\u0000expect\u0000';

/**
 * The block with a marker printed before each `console.log(...); // expected` line, carrying the
 * line and what the comment says it prints. Line numbers stay as they are.
 */
function markExpectations(code: string): string {
  return code
    .split('\n')
    .map((text, index) => {
      const found = /^(\s*)(console\.log\(.*\);)\s*\/\/\s?(.*)$/.exec(text);
      if (found === null) return text;
      const [, indent, call, expected] = found;
      const mark = JSON.stringify(`${EXPECT}${index}\u0000${expected}`);
      return `${indent}console.log(${mark}); ${call}`;
    })
    .join('\n');
}

/** Text as it compares: runs of spaces as one, none around brackets, braces, commas and colons. */
function normalised(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/\s*([[\]{}(),:])\s*/g, '$1')
    .trim();
}

/** What the marked lines of a block printed against what their comments say. */
function mismatches(block: Block, printed: readonly string[]): string[] {
  const wrong: string[] = [];
  for (let i = 0; i < printed.length; i++) {
    if (!printed[i]!.startsWith(EXPECT)) continue;
    const [line, expected] = printed[i]!.slice(EXPECT.length).split('\u0000') as [string, string];
    const actual = printed[i + 1] ?? '(nothing)';
    if (normalised(actual) !== normalised(expected))
      wrong.push(
        `${where(block, Number(line))}: prints ${actual}\n  where its comment shows ${expected}`,
      );
  }
  return wrong;
}

function where(block: Block, offsetLine: number): string {
  return `${block.source}:${block.line + offsetLine}`;
}

describe('README and docs/: every TypeScript block compiles and the runnable ones run', function () {
  this.timeout(scaled(180_000));

  before(function () {
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    // `export {}` keeps each block a module of its own, as a file of a user's would be.
    for (const block of blocks)
      writeFileSync(
        block.file,
        `${markExpectations(rewriteImports(block.code, block.source))}\nexport {};\n`,
      );
    const config = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const program = ts.createProgram(
      blocks.map((block) => block.file),
      {
        ...parsed.options,
        noEmit: true,
        declaration: false,
        sourceMap: false,
        exactOptionalPropertyTypes: true,
      },
    );
    for (const block of blocks) {
      const source = program.getSourceFile(block.file);
      const found = source === undefined ? [] : ts.getPreEmitDiagnostics(program, source);
      diagnostics.set(
        block.file,
        found.map((d) => {
          const at =
            d.file !== undefined && d.start !== undefined
              ? d.file.getLineAndCharacterOfPosition(d.start)
              : undefined;
          const text = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
          return at === undefined ? text : `${where(block, at.line)}:${at.character + 1}: ${text}`;
        }),
      );
    }
  });

  it('finds the blocks', () => {
    expect(blocks.length).to.be.greaterThan(5);
    expect(blocks.filter((block) => block.run).length).to.be.greaterThan(3);
  });

  for (const block of blocks) {
    const first = block.code.split('\n').find((line) => line.trim() !== '') ?? '';
    it(`${where(block, 0)} compiles${block.run ? ' and runs' : ''}: ${first.slice(0, 60)}`, async () => {
      const problems = diagnostics.get(block.file) ?? [];
      if (problems.length > 0)
        expect.fail(`the block at ${where(block, 0)} does not compile:\n${problems.join('\n')}`);
      if (!block.run) return;
      const printed: string[] = [];
      const saved = { log: console.log, error: console.error, warn: console.warn };
      const keep = (...args: unknown[]) => void printed.push(format(...args));
      Object.assign(console, { log: keep, error: keep, warn: keep });
      try {
        await import(pathToFileURL(block.file).href);
      } catch (err) {
        expect.fail(
          `the block at ${where(block, 0)} threw when run: ${err instanceof Error ? err.stack : String(err)}\n` +
            `(a block that cannot run here says so: \`\`\`ts no_run)\n${printed.join('\n')}`,
        );
      } finally {
        Object.assign(console, saved);
      }
      const wrong = mismatches(block, printed);
      if (wrong.length > 0) expect.fail(wrong.join('\n'));
    });
  }
});
