import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publint } from 'publint';
import { root } from './support/cli.js';
import { consumerFolder, packedPackage } from './support/package.js';

/** Runs a CLI from node_modules/.bin, returning its exit code and output. */
function run(bin: string, args: string[], cwd = root): { code: number; out: string } {
  try {
    const out = execFileSync(join(root, 'node_modules/.bin', bin), args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { code: 0, out };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, out: `${e.stdout}${e.stderr}` };
  }
}

describe('the packed package, as consumers see it', function () {
  this.timeout(240_000);

  it('publint reports nothing', async () => {
    const tarball = readFileSync(packedPackage());
    const { messages } = await publint({
      // The files of a tarball sit under package/.
      pkgDir: 'package',
      pack: {
        tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.length),
      },
      level: 'suggestion',
    });
    expect(messages.map((m) => `${m.code} ${m.path.join('.')}`)).to.deep.equal([]);
  });

  it('are-the-types-wrong reports nothing for ESM and bundler consumers', () => {
    // ESM only: the esm-only profile leaves out require() from CommonJS (node10, node16-cjs).
    const { code, out } = run('attw', [
      packedPackage(),
      '--profile',
      'esm-only',
      '--format',
      'json',
    ]);
    const report = JSON.parse(out) as {
      analysis: { problems: { resolutionKind?: string }[] };
    };
    // What the profile checks: ESM under node16/nodenext and bundlers.
    const problems = report.analysis.problems.filter(
      (p) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs',
    );
    expect(problems).to.deep.equal([]);
    expect(code).to.equal(0);
  });

  it('the shipped types compile under exactOptionalPropertyTypes with skipLibCheck off', () => {
    const dir = consumerFolder('strict-consumer');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2022', 'DOM'],
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: ['app.ts'],
      }),
    );
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(
      join(dir, 'app.ts'),
      `import { z } from 'zod';
import { executeBatch, tool } from 'agenttool';
import { toOutputItems } from 'agenttool/operators';
import { connectMcp, httpTransport } from 'agenttool/mcp/client';
import { stdioTransport } from 'agenttool/mcp/stdio';
import { createMcpServer, serveHttp } from 'agenttool/mcp/server';
import { stubTool } from 'agenttool/testing';
const t = tool({
  name: 'greet',
  description: 'Greets',
  parameters: z.object({ who: z.string() }),
  execute: ({ who }) => 'hello ' + who,
});
export const uses = [executeBatch, toOutputItems, connectMcp, httpTransport, stdioTransport,
  createMcpServer, serveHttp, stubTool, t];
`,
    );
    const { code, out } = run('tsc', ['-p', join(dir, 'tsconfig.json')], dir);
    expect(out).to.equal('');
    expect(code).to.equal(0);
  });
});
