/**
 * Command lines in README.md and docs/*.md run as written. A ```sh block just after a
 * `<!-- runnable -->` line is run line by line from the package root, each line's exit status 0
 * (README.md, Development); the files a block writes there are removed after. Every line that runs
 * the bundled turn (examples/turn.json) names server-everything's tools as `npm start` does, since
 * without them its `every__` calls are unknown tools.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url);
const docs = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Each shell line of a ```sh block in `text`, with whether the block is marked runnable. */
function shellLines(text: string): { line: string; runnable: boolean }[] {
  const lines: { line: string; runnable: boolean }[] = [];
  const blocks = /(<!-- runnable -->\n\n?)?```sh\n([\s\S]*?)```/g;
  for (const [, marker, body] of text.matchAll(blocks))
    for (const line of body!.split('\n'))
      if (line.trim() !== '') lines.push({ line, runnable: marker !== undefined });
  return lines;
}

/** `line` without its trailing comment (one set off by two spaces or more). */
function command(line: string): string {
  return line.replace(/\s{2,}#[^'"]*$/, '').trim();
}

/** The files `line` writes with `>` into the package root. */
function written(line: string): string[] {
  return [...command(line).matchAll(/>\s*([\w.-]+)\s*$/g)].map(([, file]) => file!);
}

describe('command lines in the docs', function () {
  this.timeout(120_000);

  it('run the bundled turn with the MCP server whose tools it calls, as npm start does', () => {
    const start = (
      JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts.start!;
    expect(start).to.include('--prefix every');
    for (const doc of docs)
      for (const { line } of shellLines(readFileSync(new URL(doc, root), 'utf8')))
        if (/\b(run|ui) examples\/turn\.json\b/.test(line))
          expect(line, `${doc}: ${line}`).to.match(
            /--mcp "[^"]*server-everything[^"]*" --prefix every/,
          );
  });

  it('npm start: two calls of the bundled turn fail on purpose, as README.md says, and it exits 0', async () => {
    expect(readFileSync(new URL('README.md', root), 'utf8')).to.include(
      'two of its calls fail on purpose',
    );
    const { stdout } = await run('npm', ['start', '--silent'], { cwd: root, maxBuffer: 64 << 20 });
    const items = JSON.parse(stdout) as { output: unknown }[];
    const failed = items.filter(
      ({ output }) => typeof output === 'string' && output.startsWith('Error:'),
    );
    expect(failed).to.have.length(2);
  });

  const runnable = docs.flatMap((doc) =>
    shellLines(readFileSync(new URL(doc, root), 'utf8'))
      .filter(({ runnable }) => runnable)
      .map(({ line }) => ({ doc, line })),
  );

  it('some are marked runnable', () => {
    expect(runnable.length).to.be.greaterThan(0);
  });

  for (const doc of new Set(runnable.map(({ doc }) => doc)))
    it(`${doc}: the runnable lines exit 0`, async () => {
      const lines = runnable.filter((r) => r.doc === doc).map(({ line }) => line);
      const files = lines.flatMap(written);
      try {
        for (const line of lines) {
          const { stdout } = await run('sh', ['-c', command(line)], {
            cwd: root,
            env: { ...process.env, NO_COLOR: '1' },
          }).catch((err: { code?: unknown; stderr?: unknown }) => {
            throw new Error(
              `${doc}: \`${line}\` exited ${String(err.code)}: ${String(err.stderr)}`,
            );
          });
          expect(stdout, line).to.be.a('string');
        }
      } finally {
        for (const file of files) rmSync(new URL(file, root), { force: true });
      }
    });
});
